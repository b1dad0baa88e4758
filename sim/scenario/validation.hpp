#pragma once
// Checks a scenario's YAML tree against the key table (key_table.hpp).
#include <yaml-cpp/yaml.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/core/input_error.hpp"

namespace fedgrid {

// Every problem found: unknown keys (with the closest declared key), algorithm.* keys that the
// named algorithm does not declare (with those that do), wrong types, values out of bounds or
// not allowed, keys given twice, required item keys missing. `overridden` are the
// keys set by --set (reported as such); `lines` receives every key's line.
std::vector<InputProblem> validate(const YAML::Node& root, const std::string& file,
                                   const std::set<std::string>& overridden, std::map<std::string, int>& lines);

// Levenshtein distance: insertions, deletions and substitutions of one character.
size_t edit_distance(const std::string& a, const std::string& b);

// closest_key (scenario.hpp) among the keys a scenario of `algorithm` may give: the simulator's
// own and that algorithm's ("": every key); with `algorithms_own`, that algorithm's alone.
std::string closest_key(const std::string& path, const std::string& algorithm, bool algorithms_own = false);

}  // namespace fedgrid

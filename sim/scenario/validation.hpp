#pragma once
// Checks a scenario's YAML tree against the key table (key_table.hpp).
#include <yaml-cpp/yaml.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/core/input_error.hpp"

namespace fedgrid {

// Every problem found: unknown keys (with the closest declared key), wrong types, values out
// of bounds or not allowed, keys given twice, required item keys missing. `overridden` are the
// keys set by --set (reported as such); `lines` receives every key's line.
std::vector<InputProblem> validate(const YAML::Node& root, const std::string& file,
                                   const std::set<std::string>& overridden, std::map<std::string, int>& lines);

}  // namespace fedgrid

#pragma once
// Every scenario key, declared once: type, default, allowed values, one-line description.
// This table drives validation, "did you mean" suggestions, defaults and the key reference
// (`fedgrid list keys`, docs/reference/keys.md).
#include <optional>
#include <string>
#include <vector>

namespace fedgrid {

// List: of mappings. ModelChoice: an arch name, or a mapping of the keys below it. IntTable: a
// list of lists of integers (data.partition.counts: a row per hospital). Appended last: key_transfer.cpp
// sends a type as its number.
enum class KeyType { Int, Float, String, Bool, Map, List, IntList, ModelChoice, IntTable };

struct KeyDecl {
  std::string path;          // dotted; "[]" marks the items of a list, e.g. platform.hospitals[].count
  KeyType type;
  std::optional<std::string> default_value;  // YAML scalar text; nullopt = optional, no default
  std::string description;
  std::vector<std::string> allowed = {};  // enum values for strings (empty = any)
  std::optional<double> min = {};         // inclusive lower bound for numbers
  std::optional<double> max = {};         // inclusive upper bound for numbers
  bool min_exclusive = false;
  bool max_exclusive = false;
  bool required = false;  // must be given (inside a list item or when its parent is given)
  // Set by the table (install_keys): the algorithms that declare the key, in registry order;
  // empty: the simulator's own key, which every scenario may give.
  std::vector<std::string> algorithms = {};
};

// Every key: the simulator's own (core_keys.cpp) and those the algorithms installed below. An
// algorithm.* path that two algorithms declare differently (algorithm.alpha: fedasync's and
// unifed's) is listed once per declaration.
const std::vector<KeyDecl>& scenario_keys();
// The declaration of `path` that a scenario of `algorithm` reads: the simulator's own, or one
// that algorithm declares; nullptr when neither. With `algorithm` empty or not installed (an
// unknown name, which the registry reports): the path's first declaration, whoever made it.
const KeyDecl* find_key(const std::string& path, const std::string& algorithm = "");
// The algorithms that declare `path` (any declaration of it), in registry order; empty for the
// simulator's own keys and for paths nobody declares.
std::vector<std::string> algorithms_declaring(const std::string& path);
// Whether install_keys was called for `algorithm` (with keys or none): its name is known.
bool is_installed_algorithm(const std::string& algorithm);
// Adds one algorithm's own keys (declared next to its code, key_set.hpp), after the
// simulator's algorithm.* keys. The composition root installs every registered algorithm's keys
// once, before a scenario is read (algorithms::install_algorithm_keys). A declaration another
// algorithm made alike (algorithm.fraction, description included) is kept once, naming both; a
// different one is that algorithm's own. Declaring a path twice differently, or one of the
// simulator's, is a programming error (std::logic_error).
void install_keys(const std::string& algorithm, const std::vector<KeyDecl>& keys);
std::string type_name(KeyType t);

}  // namespace fedgrid

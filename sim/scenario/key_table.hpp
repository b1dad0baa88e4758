#pragma once
// Every scenario key, declared once: type, default, allowed values, one-line description.
// This table drives validation, "did you mean" suggestions, defaults and the key reference
// (`fedgrid list keys`, docs/reference/keys.md).
#include <optional>
#include <string>
#include <vector>

namespace fedgrid {

// List: of mappings. ModelChoice: an arch name, or a mapping of the keys below it.
enum class KeyType { Int, Float, String, Bool, Map, List, IntList, ModelChoice };

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
};

// Every key: the simulator's own (key_table.cpp) and those installed below.
const std::vector<KeyDecl>& scenario_keys();
const KeyDecl* find_key(const std::string& path);
// Adds an algorithm's own keys (declared next to its code, algorithm_keys.hpp), after the
// simulator's algorithm.* keys. The composition root installs every registered algorithm's
// keys once, before a scenario is read. A key two algorithms share (algorithm.fraction) is
// declared by both alike and kept once; declarations that disagree are a programming error.
void install_keys(const std::vector<KeyDecl>& keys);
std::string type_name(KeyType t);

}  // namespace fedgrid

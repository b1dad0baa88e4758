#pragma once
// Key declarations as YAML text, for the processes that cannot link the algorithms: the fuzz
// harnesses read every algorithm's declarations from fuzz/algorithm_keys.yaml, which
// tests/test_fuzz_keys.cpp keeps equal to the registry's.
#include <string>
#include <vector>

#include "sim/scenario/key_table.hpp"

namespace fedgrid {

std::string keys_to_yaml(const std::vector<KeyDecl>& keys);
std::vector<KeyDecl> keys_from_yaml(const std::string& text);  // std::runtime_error when malformed

// One algorithm's own keys as its registry entry declares them (a name with none is kept too:
// the table then knows the name, and that no algorithm.* key of another is its).
struct AlgorithmKeys {
  std::string algorithm;
  std::vector<KeyDecl> keys;
};
std::string algorithm_keys_to_yaml(const std::vector<AlgorithmKeys>& algorithms);
// Reads algorithm_keys_to_yaml's text and installs every algorithm's keys (install_keys), as
// fedgrid does from its registry. std::runtime_error when malformed.
void install_algorithm_keys_from_yaml(const std::string& text);

}  // namespace fedgrid

#pragma once
// Key declarations as YAML text, for the one process that cannot link the algorithms: the MPI
// rank binary of `fedgrid sweep` (sim/sweep/sweep_rank_main.cpp) links neither SimGrid nor the
// algorithms, so fedgrid hands it the algorithms' declarations in the environment variable
// FEDGRID_ALGORITHM_KEYS before it execs it, and the rank validates with the whole table.
#include <string>
#include <vector>

#include "sim/scenario/key_table.hpp"

namespace fedgrid {

constexpr const char* kAlgorithmKeysVariable = "FEDGRID_ALGORITHM_KEYS";

std::string keys_to_yaml(const std::vector<KeyDecl>& keys);
std::vector<KeyDecl> keys_from_yaml(const std::string& text);  // std::runtime_error when malformed

}  // namespace fedgrid

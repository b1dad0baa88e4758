#pragma once
// algorithm.*: the federated algorithm and its own keys.
#include <string>

#include "sim/scenario/key_values.hpp"

namespace fedgrid {

struct AlgorithmSection {
  std::string name;
  KeyValues settings;  // the algorithm's own keys (algorithm.*), each read through its declaration
};

}  // namespace fedgrid

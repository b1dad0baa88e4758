#pragma once
// KeyValues' hidden node (yaml-cpp stays out of every other header).
#include <yaml-cpp/yaml.h>

#include "sim/scenario/key_values.hpp"

namespace fedgrid {

struct KeyValues::Node {
  YAML::Node yaml;  // the mapping at this level (undefined when the scenario has none)
};

}  // namespace fedgrid

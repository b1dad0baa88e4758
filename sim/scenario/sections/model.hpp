#pragma once
// model.*: the network every hospital trains, and each tier's own (heterofl, fedrolex, feddf).
#include <map>
#include <string>

namespace fedgrid {

// A model choice: model.<tier> or platform.hospitals[].model.
struct ModelChoice {
  std::string arch;
  double width_multiplier = 1.0;
};

// The model: section (fedgrid::Model is a model's state as the federation moves it).
struct ModelSection {
  std::string arch;
  double width_multiplier = 1.0;
  std::map<std::string, ModelChoice> tiers;  // model.<tier>: per-tier models (heterofl, fedrolex, feddf)
};

}  // namespace fedgrid

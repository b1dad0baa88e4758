#pragma once
// The VGG-style archs' layers, written once for the cost model (model_cost.cpp) and the torch
// nets (nets.cpp).
#include <cstdint>
#include <string>
#include <vector>

namespace fedgrid::models {

// conv3x3 + BN + ReLU widths (at width 1) with -1 for a maxpool 2, then the hidden fc widths
// before the classifier.
struct VggLayout {
  std::vector<int64_t> features, hidden;
};
// Null for an arch that is not VGG-style.
const VggLayout* vgg_layout(const std::string& arch);

}  // namespace fedgrid::models

#pragma once
// Which values of a VGG-style model's flat state belong to which conv layer (InclusiveFL shares
// and distils layer by layer), and the check that several depths form one family: a shallow
// model's conv layers are the bottom of every deeper one's, and the layers a deeper model has
// above a shallower one's top have that top layer's shape. Torch-free: index arithmetic over
// models::state_layout.
#include <cstdint>
#include <vector>

#include "models/model_spec.hpp"

namespace fedgrid::algorithms::inclusivefl {

// One state tensor: where it starts in the flat state, its length, and the conv layer it
// belongs to (0 = the first from the input), or -1 for the fc head.
struct LayerTensor {
  int64_t offset = 0, numel = 0;
  int layer = -1;
  models::StateTensor shape;
};

struct DepthLayers {
  int convs = 0;  // conv layers; the top one is convs - 1
  std::vector<LayerTensor> tensors;  // flat-state order
  // Layer `layer`'s tensors in a fixed role order (conv weight, conv bias, BN weight, BN bias,
  // running mean, running var, batch counter), so that two layers' k-th tensors correspond.
  std::vector<const LayerTensor*> layer_tensors(int layer) const;
};

// Throws std::invalid_argument for an arch without a VGG layout (models/vgg_layout.hpp).
DepthLayers depth_layers(const models::ModelSpec& spec);

// `specs` shallow to deep (by conv layers). Throws std::invalid_argument naming the first
// mismatch: two of the same depth, a shared layer of another shape, or a layer above a
// shallower model's top whose shape is not the top's.
void check_depth_family(const std::vector<models::ModelSpec>& specs);

}  // namespace fedgrid::algorithms::inclusivefl

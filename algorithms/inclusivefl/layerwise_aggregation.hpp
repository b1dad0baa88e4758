#pragma once
// InclusiveFL's server step over models of several depths of one family (depth_family.hpp):
// a sample-weighted mean within each depth, momentum distillation into each shallower model's
// top layer, and every other conv layer averaged over all the depths that share it. Torch-free:
// plain arithmetic on flat states, in double precision, in a fixed order.
#include <vector>

#include "algorithms/inclusivefl/depth_family.hpp"
#include "sim/core/model.hpp"

namespace fedgrid::algorithms::inclusivefl {

// One depth: its model as sent this round, its layers, and its hospitals' updates (none when
// all of them were lost). All of a depth's updates hold that depth's model.
struct DepthGroup {
  const Model* model = nullptr;
  const DepthLayers* layers = nullptr;
  std::vector<const Update*> updates;
};

// `groups` shallow to deep. With D_g group g's update (its updates' sample-weighted mean minus
// its model) and n_g its samples:
//   top layer t of group g (g not the deepest, and g + 1 trained this round):
//     D_g[t] <- (1 - beta) D_g[t] + beta * mean over l = t .. top(g + 1) of D_{g+1}[l]
//   conv layer l below a group's top: w[l] += sum_h n_h D_h[l] / sum_h n_h over the groups h that
//     trained and hold l below their own top (the same value in all of them)
//   the top layer and the fc head: w += D_g (within the depth only).
// Returns the groups' new models, in the order given.
std::vector<Model> layerwise_aggregate(const std::vector<DepthGroup>& groups, double beta);

// The FLOPs of that step, from the shapes alone (so timing-only runs charge the same): a
// multiply and an add per value per update in the group means, per source layer and 3 more per
// distilled value, and per holder for each shared value.
double layerwise_flops(const std::vector<DepthGroup>& groups);

}  // namespace fedgrid::algorithms::inclusivefl

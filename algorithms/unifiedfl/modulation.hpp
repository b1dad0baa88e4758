#pragma once
// UnifiedFL's modulation of a private network by Theta (Pala & Rekik 2025, Sec. 4.1), on the
// network's native tensors: each weight or bias tensor gets an index tensor of its shape that
// holds every element's group, and
//   w_eff = s z / (s + |z|),  z = w * Theta_scale[g] + Theta_shift[g]
// is computed tensor-wide. The paper unrolls the network into a model-graph first; every
// unrolled edge of a conv kernel element carries that element's key, value and group, so they
// stay equal forever and the native conv computes exactly the graph's sums (the authors' code
// adds each bias once per node, as a native layer does). Layers the paper's converter cannot
// express run natively: pooling has no weights; batch norm's affine weight and bias are
// modulated as nodes (one group per channel), its running statistics stay private buffers.
// A deviation: conv biases are grouped per channel, not per output position (the graph's
// per-position bias nodes would turn a conv bias into a bias map).
#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "algorithms/unifiedfl/theta.hpp"
#include "models/nets.hpp"

namespace fedgrid::unifiedfl {

// One modulated tensor of a network: the member its module's forward reads, the registered
// parameter that keeps the private (folded) values, and each element's group.
struct ModulatedTensor {
  torch::Tensor* member = nullptr;
  torch::Tensor param;
  torch::Tensor groups;  // int64, param's numel, flattened
  bool edge = true;      // an edge (weight: edge groups) or a node (bias: node groups)
};

// Every conv, linear and batch-norm tensor of `net` in forward (registration) order, with
// its groups from the kernel keys and `seed`.
std::vector<ModulatedTensor> modulated_tensors(models::Net& net, const ThetaLayout& layout, uint64_t seed);

// w_eff of one tensor under `theta` (differentiable in theta).
torch::Tensor modulate(const torch::Tensor& w, const torch::Tensor& groups, bool edge, const torch::Tensor& theta,
                       const ThetaLayout& layout);

// Puts a network under Theta for one training job. While it lives, the network's parameters
// take no gradient; apply(theta) makes the forward read w_eff(theta) (the graph reaches theta);
// fold(theta) writes w_eff(theta) into the private parameters and points the forward back at
// them. The destructor restores the network as it found it (parameters trainable).
class Modulator {
 public:
  Modulator(models::Net& net, const ThetaLayout& layout, uint64_t seed);
  ~Modulator();
  Modulator(const Modulator&) = delete;
  Modulator& operator=(const Modulator&) = delete;
  void apply(const torch::Tensor& theta);
  void fold(const torch::Tensor& theta);
  int64_t modulated_values() const;  // every modulated element (the charge of one modulation)

 private:
  // w_eff of every tensor, in order: one gather per Theta part over all edges and all nodes at
  // once (one autograd node each, not one per tensor).
  std::vector<torch::Tensor> effective(const torch::Tensor& theta) const;
  void point_back();
  std::vector<ModulatedTensor> tensors_;
  ThetaLayout layout_;
  torch::Tensor edge_groups_, node_groups_;  // every edge's (node's) group, tensors in order
};

}  // namespace fedgrid::unifiedfl

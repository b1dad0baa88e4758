#pragma once
// UnifiedFL's shared vector Theta (Pala & Rekik 2025, Sec. 4.1) and the grouping functions
// g_e / g_v that tie every private weight to one of its entries. Torch-free: the server side
// (averaging, distances) and the tests use it without LibTorch.
//
// Layout, in this order (the authors' code, UGNN_WS):
//   edge scale  [k_e]  init 1   multiplies a weight of edge group g
//   edge shift  [k_e]  init 0   added to it
//   node scale  [k_b]  init 1   multiplies a bias (node) of node group g
//   node shift  [k_b]  init 0
//   s_edge, s_node     init 1   the softsign scales: w <- s z / (s + |z|)
// so |Theta| = 2 k_e + 2 k_b + 2.
#include <cstdint>
#include <string>
#include <vector>

#include "models/model_spec.hpp"

namespace fedgrid::unifiedfl {

struct ThetaLayout {
  int64_t edge_groups = 150000, node_groups = 50000;  // k_e, k_b
  int64_t edge_scale() const { return 0; }
  int64_t edge_shift() const { return edge_groups; }
  int64_t node_scale() const { return 2 * edge_groups; }
  int64_t node_shift() const { return 2 * edge_groups + node_groups; }
  int64_t softsign_edge() const { return 2 * edge_groups + 2 * node_groups; }
  int64_t softsign_node() const { return softsign_edge() + 1; }
  int64_t size() const { return 2 * edge_groups + 2 * node_groups + 2; }
  // What a Theta message weighs on the wire: every entry as float32 plus the house header.
  int64_t payload_bytes() const { return size() * 4 + models::kPayloadHeaderBytes; }
};

std::vector<float> initial_theta(const ThetaLayout& layout);

// A weight's or bias's kernel key (the authors' convert.py): every element of one conv kernel
// position shares one key wherever it is unrolled; keys name no architecture, so the same key
// in two networks falls in the same group (the sharing mechanism). `layer` counts a network's
// conv and linear layers together from 1, in forward order; batch norms count apart.
enum class KeyKind : int { Conv = 1, Linear = 2, Bias = 3, NormScale = 4, NormShift = 5 };
struct KernelKey {
  KeyKind kind = KeyKind::Conv;
  int64_t layer = 1;
  int64_t index[4] = {0, 0, 0, 0};  // conv (co, ci, ki, kj); linear (target, source); bias/norm (channel)
};
bool is_edge(KeyKind kind);  // conv and linear weights are edges; biases and norm affines nodes

// g_e / g_v: the group of a key, a hash of (seed, key) modulo the group count, the same on
// every hospital without a coordinator (the scenario seed is all they share).
int64_t group_of(const KernelKey& key, uint64_t seed, int64_t groups);
inline int64_t edge_group(const KernelKey& key, uint64_t seed, const ThetaLayout& l) {
  return group_of(key, seed, l.edge_groups);
}
inline int64_t node_group(const KernelKey& key, uint64_t seed, const ThetaLayout& l) {
  return group_of(key, seed, l.node_groups);
}

// The scaled softsign of the modulation, for one value (the tests' hand examples).
inline double modulate(double w, double scale, double shift, double s) {
  const double z = w * scale + shift;
  return s * z / (s + (z < 0 ? -z : z));
}

// A model's topology descriptor tau_i (Alg. 1, line 3), 8 values = the paper's 32 bytes:
// conv layers, linear layers, log10 weights (edges), log10 biases (nodes), log10 forward FLOPs
// per sample, mean fan-in, log10 largest fan-in, log10 widest layer (outputs).
std::vector<double> topology_descriptor(const models::ModelSpec& spec);
inline constexpr int64_t kDescriptorValues = 8;

}  // namespace fedgrid::unifiedfl

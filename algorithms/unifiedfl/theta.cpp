// Theta's initial value, the grouping hash and the topology descriptor (see theta.hpp).
#include "algorithms/unifiedfl/theta.hpp"

#include <algorithm>
#include <cmath>

namespace fedgrid::unifiedfl {
namespace {

// splitmix64's finaliser: every input bit moves every output bit.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

std::vector<float> initial_theta(const ThetaLayout& l) {
  std::vector<float> theta(size_t(l.size()), 0.0f);
  std::fill_n(theta.begin() + l.edge_scale(), l.edge_groups, 1.0f);
  std::fill_n(theta.begin() + l.node_scale(), l.node_groups, 1.0f);
  theta[size_t(l.softsign_edge())] = theta[size_t(l.softsign_node())] = 1.0f;
  return theta;
}

bool is_edge(KeyKind kind) { return kind == KeyKind::Conv || kind == KeyKind::Linear; }

int64_t group_of(const KernelKey& key, uint64_t seed, int64_t groups) {
  uint64_t h = mix(seed ^ 0x756e6966696564ULL);  // "unified": apart from other uses of the seed
  h = mix(h ^ uint64_t(key.kind));
  h = mix(h ^ uint64_t(key.layer));
  for (int64_t i : key.index) h = mix(h ^ uint64_t(i));
  return int64_t(h % uint64_t(groups));
}

std::vector<double> topology_descriptor(const models::ModelSpec& spec) {
  double convs = 0, linears = 0, edges = 0, nodes = 0, fan_sum = 0, fan_max = 0, widest = 0;
  for (const auto& t : models::state_layout(spec)) {
    if (t.batchnorm || t.axes.empty()) continue;
    const double out = double(t.axes[0].channels * t.axes[0].block);
    if (t.axes.size() == 1) {  // a bias: one node per output
      nodes += double(t.numel());
      continue;
    }
    (t.axes.size() == 4 ? convs : linears) += 1;
    edges += double(t.numel());
    const double fan_in = double(t.numel()) / out;
    fan_sum += fan_in;
    fan_max = std::max(fan_max, fan_in);
    widest = std::max(widest, out);
  }
  const double layers = std::max(1.0, convs + linears);
  return {convs,
          linears,
          std::log10(1 + edges),
          std::log10(1 + nodes),
          std::log10(1 + models::model_cost(spec).forward_flops),
          fan_sum / layers,
          std::log10(1 + fan_max),
          std::log10(1 + widest)};
}

}  // namespace fedgrid::unifiedfl

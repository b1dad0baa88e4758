// Groups per element from kernel keys, and the modulation/fold of a native network (see
// modulation.hpp).
#include "algorithms/unifiedfl/modulation.hpp"

namespace fedgrid::unifiedfl {
namespace {

// Each element's group, its key built from `key_of(index)` for the multi-index of the element.
template <class KeyOf>
torch::Tensor groups_for(const torch::Tensor& t, KeyOf key_of, uint64_t seed, int64_t groups) {
  const auto sizes = t.sizes().vec();
  std::vector<int64_t> out(size_t(t.numel()));
  std::vector<int64_t> at(sizes.size(), 0);
  for (size_t n = 0; n < out.size(); ++n) {
    out[n] = group_of(key_of(at), seed, groups);
    for (size_t d = sizes.size(); d-- > 0;) {  // row-major odometer
      if (++at[d] < sizes[d]) break;
      at[d] = 0;
    }
  }
  return torch::tensor(out, torch::kInt64).to(t.device());
}

KernelKey key(KeyKind kind, int64_t layer, const std::vector<int64_t>& at) {
  KernelKey k{kind, layer, {0, 0, 0, 0}};
  for (size_t i = 0; i < at.size() && i < 4; ++i) k.index[i] = at[i];
  return k;
}

}  // namespace

std::vector<ModulatedTensor> modulated_tensors(models::Net& net, const ThetaLayout& layout, uint64_t seed) {
  std::vector<ModulatedTensor> out;
  int64_t layer = 0, norm = 0;
  auto add = [&](torch::Tensor* member, KeyKind kind, int64_t number) {
    if (!member->defined()) return;  // a conv without bias
    const bool edge = is_edge(kind);
    out.push_back({member, *member,
                   groups_for(*member, [&](const std::vector<int64_t>& at) { return key(kind, number, at); }, seed,
                              edge ? layout.edge_groups : layout.node_groups),
                   edge});
  };
  for (const auto& module : net.modules(/*include_self=*/false)) {
    if (auto* conv = module->as<torch::nn::Conv2d>()) {
      ++layer;
      add(&conv->weight, KeyKind::Conv, layer);
      add(&conv->bias, KeyKind::Bias, layer);
    } else if (auto* linear = module->as<torch::nn::Linear>()) {
      ++layer;
      add(&linear->weight, KeyKind::Linear, layer);
      add(&linear->bias, KeyKind::Bias, layer);
    } else if (auto* bn = module->as<torch::nn::BatchNorm2d>()) {
      ++norm;
      add(&bn->weight, KeyKind::NormScale, norm);
      add(&bn->bias, KeyKind::NormShift, norm);
    }
  }
  return out;
}

torch::Tensor modulate(const torch::Tensor& w, const torch::Tensor& groups, bool edge, const torch::Tensor& theta,
                       const ThetaLayout& l) {
  const int64_t k = edge ? l.edge_groups : l.node_groups;
  const torch::Tensor scale = theta.narrow(0, edge ? l.edge_scale() : l.node_scale(), k).index_select(0, groups);
  const torch::Tensor shift = theta.narrow(0, edge ? l.edge_shift() : l.node_shift(), k).index_select(0, groups);
  const torch::Tensor s = theta.narrow(0, edge ? l.softsign_edge() : l.softsign_node(), 1);
  const torch::Tensor z = w * scale.view(w.sizes()) + shift.view(w.sizes());
  return s * z / (s + z.abs());
}

Modulator::Modulator(models::Net& net, const ThetaLayout& layout, uint64_t seed)
    : tensors_(modulated_tensors(net, layout, seed)), layout_(layout) {
  std::vector<torch::Tensor> edges, nodes;
  for (auto& t : tensors_) {
    t.param.requires_grad_(false);
    (t.edge ? edges : nodes).push_back(t.groups);
  }
  auto all = [](const std::vector<torch::Tensor>& g) {
    return g.empty() ? torch::empty({0}, torch::kInt64) : torch::cat(g);
  };
  edge_groups_ = all(edges), node_groups_ = all(nodes);
}

std::vector<torch::Tensor> Modulator::effective(const torch::Tensor& theta) const {
  const ThetaLayout& l = layout_;
  const torch::Tensor edge_scale = theta.narrow(0, l.edge_scale(), l.edge_groups).index_select(0, edge_groups_);
  const torch::Tensor edge_shift = theta.narrow(0, l.edge_shift(), l.edge_groups).index_select(0, edge_groups_);
  const torch::Tensor node_scale = theta.narrow(0, l.node_scale(), l.node_groups).index_select(0, node_groups_);
  const torch::Tensor node_shift = theta.narrow(0, l.node_shift(), l.node_groups).index_select(0, node_groups_);
  const torch::Tensor s_edge = theta.narrow(0, l.softsign_edge(), 1), s_node = theta.narrow(0, l.softsign_node(), 1);
  std::vector<torch::Tensor> out;
  int64_t at_edge = 0, at_node = 0;
  for (const auto& t : tensors_) {
    const int64_t n = t.param.numel();
    int64_t& at = t.edge ? at_edge : at_node;
    const torch::Tensor z = t.param * (t.edge ? edge_scale : node_scale).narrow(0, at, n).view(t.param.sizes()) +
                            (t.edge ? edge_shift : node_shift).narrow(0, at, n).view(t.param.sizes());
    const torch::Tensor& s = t.edge ? s_edge : s_node;
    out.push_back(s * z / (s + z.abs()));
    at += n;
  }
  return out;
}

Modulator::~Modulator() {
  point_back();
  for (auto& t : tensors_) t.param.requires_grad_(true);
}

void Modulator::point_back() {
  for (auto& t : tensors_) *t.member = t.param;
}

void Modulator::apply(const torch::Tensor& theta) {
  std::vector<torch::Tensor> w = effective(theta);
  for (size_t i = 0; i < tensors_.size(); ++i) *tensors_[i].member = std::move(w[i]);
}

void Modulator::fold(const torch::Tensor& theta) {
  torch::NoGradGuard no_grad;
  const std::vector<torch::Tensor> w = effective(theta);
  for (size_t i = 0; i < tensors_.size(); ++i) tensors_[i].param.copy_(w[i]);
  point_back();
}

int64_t Modulator::modulated_values() const {
  int64_t n = 0;
  for (const auto& t : tensors_) n += t.param.numel();
  return n;
}

}  // namespace fedgrid::unifiedfl

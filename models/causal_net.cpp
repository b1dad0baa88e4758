// CarPe-FL's network (Shin et al. 2026). The paper's refinement equations were lost from the
// text; reconstructed as a GAT layer (Velickovic et al., ICLR 2018) over the latent nodes:
//   x_v^(0)   = z_v a_v + b_v                         (node lift, a_v, b_v in R^{h_g})
//   e_uv      = LeakyReLU_0.2(s^T W x_u + t^T W x_v) + B[u,v]
//   alpha_uv  = g(u,v) exp(e_uv) / sum_{w in Pa(v) + {v}} g(w,v) exp(e_wv)   (Pa(v): u with G[u,v] = 1)
//   x_v^(t+1) = ELU(sum_u alpha_uv W x_u),  g(v,v) = 1 (a self loop keeps sources alive)
// The gate scales an edge's share of the attention (a gate of 1 is plain GAT), so an edge the
// backbone excludes, or whose gate is 0, neither passes its value nor shifts the others' shares.
// The head reads the flattened node features. Layer order matches walk_carpefl (model_cost.cpp).
#include "models/causal_net.hpp"

namespace fedgrid::models {

namespace nn = torch::nn;

CausalGraphImpl::CausalGraphImpl(int64_t d, int64_t h, int64_t layers) {
  lift_scale = register_parameter("lift_scale", torch::randn({d, h}) / std::sqrt(double(h)));
  lift_shift = register_parameter("lift_shift", torch::zeros({d, h}));
  for (int64_t t = 0; t < layers; ++t) {
    const std::string n = std::to_string(t);
    weight.push_back(register_parameter("weight" + n, torch::randn({h, h}) / std::sqrt(double(h))));
    attend_source.push_back(register_parameter("attend_source" + n, torch::randn({h}) / std::sqrt(double(h))));
    attend_target.push_back(register_parameter("attend_target" + n, torch::randn({h}) / std::sqrt(double(h))));
    edge_bias.push_back(register_parameter("edge_bias" + n, torch::zeros({d, d})));
  }
  gate_logit = register_parameter("gate_logit", torch::zeros({d, d}));
  backbone = register_buffer("backbone", torch::zeros({d, d}));
  confidence = register_buffer("confidence", torch::zeros({d, d}));
  balance = register_buffer("balance", torch::full({1}, 0.5));
}

torch::Tensor CausalGraphImpl::gate() {
  return backbone * (balance * confidence.clamp_min(0) + (1 - balance) * torch::sigmoid(gate_logit));
}

torch::Tensor CausalGraphImpl::forward(const torch::Tensor& z) {
  const int64_t d = backbone.size(0);
  const auto eye = torch::eye(d, backbone.options());
  // Indexed [v][u] (target, source): who v listens to, and how loud.
  const auto listens = (backbone.t() + eye) > 0.5;
  const auto scale = gate().t() + eye;
  torch::Tensor x = z.unsqueeze(-1) * lift_scale + lift_shift;  // [b, d, h]
  for (size_t t = 0; t < weight.size(); ++t) {
    const auto wx = torch::matmul(x, weight[t]);                          // [b, d, h]
    const auto from = torch::matmul(wx, attend_source[t]).unsqueeze(1);   // [b, 1, d] (u)
    const auto to = torch::matmul(wx, attend_target[t]).unsqueeze(2);     // [b, d, 1] (v)
    // log g: the clamp keeps a zero gate's gradient finite (its share stays about e^-69).
    auto e = torch::leaky_relu(from + to, 0.2) + edge_bias[t].t() + torch::log(scale.clamp_min(1e-30));  // [b, v, u]
    e = e.masked_fill(listens.logical_not(), -std::numeric_limits<float>::infinity());
    x = torch::elu(torch::matmul(torch::softmax(e, -1), wx));
  }
  return x;
}

CausalNet::CausalNet(const ModelSpec& s) {
  const int64_t h = (((s.height - 4) / 2) - 4) / 2, w = (((s.width - 4) / 2) - 4) / 2;
  const int64_t d = kCausalNet.latents;
  conv1 = register_module("conv1", GrowableConv(s.channels, s.scaled(32), 5, 1, 0, true));
  conv2 = register_module("conv2", GrowableConv(s.scaled(32), s.scaled(64), 5, 1, 0, true));
  fc1 = register_module("fc1", nn::Linear(s.scaled(64) * h * w, s.scaled(512)));
  latent = register_module("latent", nn::Linear(s.scaled(512), d));
  graph = register_module("graph", CausalGraph(d, kCausalNet.hidden, kCausalNet.layers));
  head = register_module("head", nn::Linear(d * kCausalNet.hidden, s.num_classes));
  growable = {conv1, conv2};
  classifier = head;
}

torch::Tensor CausalNet::encode(torch::Tensor x, std::vector<torch::Tensor>* taps) {
  x = torch::max_pool2d(torch::relu(conv1(x)), 2);
  if (taps) taps->push_back(x);
  x = torch::max_pool2d(torch::relu(conv2(x)), 2);
  if (taps) taps->push_back(x);
  return latent(torch::relu(fc1(x.flatten(1))));
}

torch::Tensor CausalNet::run(torch::Tensor x, std::vector<torch::Tensor>* taps) {
  return head(graph(encode(std::move(x), taps)).flatten(1));
}

}  // namespace fedgrid::models

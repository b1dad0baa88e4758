#pragma once
// CarPe-FL's network (Shin et al. 2026, Sec. 4.5): an image encoder to d latent factors, a
// graph-attention refinement over the latent nodes that passes messages only along the
// cluster's causal backbone, each edge scaled by a gate, and a personal head. Torch inside:
// include only where torch is needed.
#include <torch/torch.h>

#include "models/causal_layout.hpp"
#include "models/nets.hpp"

namespace fedgrid::models {

// The graph module's parameters and the backbone it follows (buffers, written by the server).
struct CausalGraphImpl : torch::nn::Module {
  CausalGraphImpl(int64_t latents, int64_t hidden, int64_t layers);
  // z [batch, d] -> node features [batch, d, h_g].
  torch::Tensor forward(const torch::Tensor& z);
  // g(u,v) = G[u,v] (beta max(cbar[u,v], 0) + (1 - beta) sigmoid(rho[u,v])): the gate of each
  // backbone edge u -> v, zero off the backbone; it scales the edge's share of the attention.
  torch::Tensor gate();

  torch::Tensor lift_scale, lift_shift;
  std::vector<torch::Tensor> weight, attend_source, attend_target, edge_bias;
  torch::Tensor gate_logit;
  torch::Tensor backbone, confidence, balance;
};
TORCH_MODULE(CausalGraph);

struct CausalNet : Net {
  explicit CausalNet(const ModelSpec& spec);
  torch::Tensor encode(torch::Tensor x, std::vector<torch::Tensor>* taps);  // [batch, d]
  GrowableConv conv1{nullptr}, conv2{nullptr};
  torch::nn::Linear fc1{nullptr}, latent{nullptr};
  CausalGraph graph{nullptr};
  torch::nn::Linear head{nullptr};

 protected:
  torch::Tensor run(torch::Tensor x, std::vector<torch::Tensor>* taps) override;
};

}  // namespace fedgrid::models

#pragma once
// The "carpefl" network's sizes and where each of its parts lies in the flat state, torch-free:
// CarPe-FL (Shin et al. 2026) averages the encoder and graph module within a cluster, masks the
// edge-indexed tensors by the cluster's backbone, keeps the head and gate logits on the
// hospital, and has the server write the backbone and confidences into the buffers.
#include <cstdint>
#include <vector>

#include "models/model_spec.hpp"

namespace fedgrid::models {

// The paper leaves d, the graph's hidden width and its depth out (their values were lost in
// the text); small ones that keep the CPU cost of a round near the cnn's.
struct CausalNetDims {
  int64_t latents = 16;  // d: latent factors, one graph node each
  int64_t hidden = 8;    // h_g: features per node in the graph module
  int64_t layers = 2;    // T: graph-attention layers
};
inline constexpr CausalNetDims kCausalNet{};

struct StateRange {
  int64_t offset = 0, size = 0;
};

struct CausalNetParts {
  std::vector<StateRange> shared;  // encoder + graph module (gate logits and head excluded)
  StateRange encoder, graph;       // the two halves of `shared`: the trunk to z, the graph module
  std::vector<StateRange> edges;   // the d x d edge-indexed biases B^(t), inside `shared`
  StateRange gate;                 // d x d gate logits rho (local)
  StateRange head;                 // classifier weight and bias (local)
  StateRange backbone, confidence, balance;  // buffers: G (0/1), cbar, beta
  int64_t total = 0;
};

// Throws std::invalid_argument for a spec whose arch is not "carpefl".
CausalNetParts causal_net_parts(const ModelSpec& spec);

}  // namespace fedgrid::models

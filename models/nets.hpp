#pragma once
// LibTorch networks and their flat-weight (de)serialisation. Include only where torch is
// needed: torch/torch.h costs ~27 s per translation unit.
#include <torch/torch.h>

#include <memory>
#include <vector>

#include "models/model_spec.hpp"

namespace fedgrid::models {

// A KxK convolution that DynamicFL can grow into a multi-branch block (models/dbb.hpp) for
// local training and fold back. While grown, the block is registered as "grown" and computes
// the forward pass; the plain conv keeps the folded weights.
struct GrowableConvImpl : torch::nn::Module {
  GrowableConvImpl(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t padding, bool bias);
  torch::Tensor forward(const torch::Tensor& x);
  bool grown() const { return !block.is_empty(); }

  int64_t in, out, kernel, stride, padding;
  torch::nn::Conv2d conv{nullptr};
  torch::nn::AnyModule block;  // the grown block, empty when plain
  // The batch norm right after this conv (not owned), which absorbs a fused bias when the conv
  // has none; null when the conv carries its own bias.
  torch::nn::BatchNorm2d follower{nullptr};
};
TORCH_MODULE(GrowableConv);

struct Net : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x) { return run(std::move(x), nullptr); }
  // The logits, appending every stage output (models::feature_taps, same order) to `taps`.
  torch::Tensor forward_taps(torch::Tensor x, std::vector<torch::Tensor>& taps) { return run(std::move(x), &taps); }
  // Every KxK conv, in forward order (the order of model_cost's conv_sites()).
  std::vector<GrowableConv> growable;
  torch::nn::Linear classifier{nullptr};  // the prediction head (the last layer)

 protected:
  virtual torch::Tensor run(torch::Tensor x, std::vector<torch::Tensor>* taps) = 0;
};

// Builds the module; parameters are drawn from torch's global generator, so callers
// that need reproducible weights build models in a fixed order after torch::manual_seed.
std::shared_ptr<Net> make_net(const ModelSpec& spec);

// Parameters then buffers, in named_parameters()/named_buffers() order, as one float vector.
std::vector<float> flatten_state(Net& net);
void load_state(Net& net, const std::vector<float>& values);

}  // namespace fedgrid::models

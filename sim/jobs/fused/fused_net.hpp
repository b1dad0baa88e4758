#pragma once
// Many hospitals' nets of one architecture as one batched model, as HFTA (Wang et al., MLSys
// 2021) fuses same-shape models: every parameter and buffer is stacked along a leading member
// axis; convolutions of M members run as one grouped convolution over M x C channels, linear
// layers as one batched matrix product, batch norms with statistics per member and channel.
// The layers are those of models/nets.cpp, in the same order, so a member's slice of the
// stacked state is, value for value, the state flatten_state() writes for that member.
// Include only from .cpp files that run on the executor (torch/torch.h).
#include <torch/torch.h>

#include <vector>

#include "models/model_spec.hpp"

namespace fedgrid::jobs {

class FusedNet {
 public:
  // Throws std::logic_error for an arch fusible_arch() refuses.
  FusedNet(const models::ModelSpec& spec, int64_t members, torch::Device device);

  // Members' flat states (flatten_state's layout), one per member, in member order.
  void load(const std::vector<const std::vector<float>*>& states);
  std::vector<std::vector<float>> states() const;

  // Logits [M, N, classes] of images [M, N, C, H, W] in train mode. `real` [M, N] is 1 for a
  // member's samples and 0 for padding (members with fewer samples in this batch): padding
  // never enters a batch norm's statistics. Running statistics move only for members with a
  // real sample.
  torch::Tensor forward_train(const torch::Tensor& images, const torch::Tensor& real);

  // Stacked parameters [M, ...] (trainable leaves), in net.parameters() order.
  const std::vector<torch::Tensor>& parameters() const { return params_; }
  int64_t members() const { return members_; }

  // The layers of models/nets.cpp's net for `spec`, in forward order; empty for an arch with no
  // fused form (resnets, carpefl).
  enum class Op { Conv, BatchNorm, Relu, MaxPool2, Flatten, Linear };
  struct Layer {
    Op op;
    int64_t stride = 1, padding = 0;
    bool bias = true;  // Conv: has a bias (false where a batch norm follows)
  };
  static std::vector<Layer> layers_of(const models::ModelSpec& spec);

 private:
  torch::Tensor batch_norm(const torch::Tensor& x, size_t param, size_t buffer, const torch::Tensor& real);

  std::vector<Layer> layers_;
  int64_t members_;
  std::vector<torch::Tensor> params_, buffers_;  // stacked, [M, ...]
};

}  // namespace fedgrid::jobs

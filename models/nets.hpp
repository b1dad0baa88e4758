#pragma once
// LibTorch networks and their flat-weight (de)serialisation. Include only where torch is
// needed: torch/torch.h costs ~27 s per translation unit.
#include <torch/torch.h>

#include <memory>
#include <vector>

#include "models/model_spec.hpp"

namespace fedgrid::models {

struct Net : torch::nn::Module {
  virtual torch::Tensor forward(torch::Tensor x) = 0;
};

// Builds the module; parameters are drawn from torch's global generator, so callers
// that need reproducible weights build models in a fixed order after torch::manual_seed.
std::shared_ptr<Net> make_net(const ModelSpec& spec);

// Parameters then buffers, in named_parameters()/named_buffers() order, as one float vector.
std::vector<float> flatten_state(Net& net);
void load_state(Net& net, const std::vector<float>& values);

}  // namespace fedgrid::models

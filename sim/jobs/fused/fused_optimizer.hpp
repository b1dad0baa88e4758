#pragma once
// The optimisers of make_optimizer (epoch_loop.hpp), SGD with momentum and weight decay, Adam
// and AdamW, over stacked parameters [M, ...] with state per member, taking a step only for the
// members active in this batch: a member whose job has run out of batches keeps its weights and
// its optimiser state exactly where its own job would have left them. The arithmetic is
// torch::optim's (1.13 and 2.x: SGD without dampening or Nesterov, Adam and AdamW without
// AMSGrad; AdamW shrinks the weights by 1 - lr weight_decay before the Adam step).
// Include only from .cpp files that run on the executor (torch/torch.h).
#include <torch/torch.h>

#include <vector>

#include "sim/jobs/compute.hpp"

namespace fedgrid::jobs {

class FusedOptimizer {
 public:
  FusedOptimizer(std::vector<torch::Tensor> params, const OptimizerConfig& config);
  // One step from the parameters' gradients; `active[m]`: member m trained on this batch.
  void step(const std::vector<bool>& active);

 private:
  std::vector<torch::Tensor> params_;
  OptimizerConfig config_;
  bool adam_, decoupled_;  // Adam's moments; AdamW's weight decay (decoupled from the gradient)
  std::vector<torch::Tensor> first_, second_;  // momentum buffers (SGD), or Adam's two moments
  std::vector<int64_t> steps_;                 // Adam's step count, per member
};

}  // namespace fedgrid::jobs

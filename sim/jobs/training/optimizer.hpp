#pragma once
// fedgrid's one implementation of the optimisers training.optimizer names: SGD with momentum and
// weight decay, Adam, and AdamW (weight decay decoupled from the gradient, Loshchilov and Hutter,
// ICLR 2019). Every local work steps through it, plain or fused: a parameter set is either a
// net's own parameters, or a FusedNet's stacked [M, ...] ones (sim/jobs/fused/fused_net.hpp),
// where each member has its own state and a step may leave some members out (a member whose job
// has run out of batches keeps its weights and state where its own job would have left them).
// On a net's own parameters the operations are LibTorch 1.13's torch::optim, one for one (SGD
// without dampening or Nesterov, Adam and AdamW without AMSGrad), so a run steps as it did when
// it called torch::optim. Include only from .cpp files that run on the executor (torch/torch.h).
#include <torch/torch.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/jobs/compute.hpp"

namespace fedgrid::jobs {

class LocalOptimizer {
 public:
  // A net's own parameters.
  LocalOptimizer(std::vector<torch::Tensor> params, const OptimizerConfig& config);
  // Stacked parameters [members, ...], state per member.
  LocalOptimizer(std::vector<torch::Tensor> params, const OptimizerConfig& config, int64_t members);

  // Gradients zeroed in place (torch 1.13's zero_grad: a parameter once given a gradient keeps
  // one, so it keeps stepping), or dropped when `set_to_none`.
  void zero_grad(bool set_to_none = false);
  // One step from the parameters' gradients; a parameter without one is skipped, as torch does.
  void step();
  // Stacked parameters: `active[m]`, member m trained on this batch.
  void step(const std::vector<bool>& active);

  // A parameter's state, which a job may keep for the next (FedSKD's persistent Adam, UniFed's
  // momentum): Adam's two moments and step count, or SGD's momentum buffer in `first`. Parameters
  // by their index in the constructor's list; a net's own parameters only.
  struct ParamState {
    torch::Tensor first, second;
    int64_t steps = 0;
  };
  std::optional<ParamState> state(size_t param) const;  // nullopt: no state yet (no step taken on it)
  void set_state(size_t param, ParamState state);
  const OptimizerConfig& config() const { return config_; }

 private:
  std::vector<torch::Tensor> params_;
  OptimizerConfig config_;
  int64_t members_;  // 0: a net's own parameters
  std::vector<torch::Tensor> first_, second_;  // SGD's momentum buffers, or Adam's two moments
  std::vector<std::vector<int64_t>> steps_;    // Adam's step count, per parameter and member
};

}  // namespace fedgrid::jobs

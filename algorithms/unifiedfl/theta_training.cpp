// UnifiedFL's local epoch on the executor (see theta_training.hpp). Decisions:
// - a fresh AdamW every job: no fedgrid job carries optimiser state across rounds, and Theta is
//   overwritten by aggregates between rounds, which would leave stale moments behind;
// - the network trains in train mode (batch-norm statistics update, privately);
// - the reported loss is the batch's cross-entropy under the modulated forward.
#include "algorithms/unifiedfl/theta_training.hpp"

#include "algorithms/unifiedfl/modulation.hpp"
#include "models/model_spec.hpp"
#include "sim/jobs/training/epoch_loop.hpp"

namespace fedgrid::unifiedfl {

TrainOutcome ThetaTraining::run_torch(const JobInput& job) {
  using namespace jobs;
  models::Net& net = cached_net(job.model->spec, job.device, 0);
  models::load_state(net, job.model->weights);
  net.train();
  torch::Tensor theta =
      torch::tensor(theta_, torch::kFloat32).to(torch_device(job.device)).set_requires_grad(true);
  LocalOptimizer adamw({theta}, {Optimizer::AdamW, optimizer_.lr, 0, optimizer_.weight_decay, optimizer_.beta1,
                                 optimizer_.beta2});
  const bool drop_single = models::batchnorm_on_1x1(job.model->spec);
  TrainOutcome out;
  {
    Modulator modulator(net, layout_, seed_);
    out = run_epochs(job, tensors_of(*job.dataset, job.device), *job.train, {epochs_, 0, 0, drop_single},
                     [&](const torch::Tensor& x, const torch::Tensor& y, bool) {
                       adamw.zero_grad();
                       modulator.apply(theta);
                       const torch::Tensor loss = torch::nn::functional::cross_entropy(net.forward(x), y);
                       loss.backward();
                       adamw.step();
                       modulator.fold(theta);
                       return loss.item<double>();
                     });
  }
  out.weights = models::flatten_state(net);
  const torch::Tensor values = theta.detach().to(torch::kCPU).contiguous();
  theta_out_.assign(values.data_ptr<float>(), values.data_ptr<float>() + values.numel());
  return out;
}

}  // namespace fedgrid::unifiedfl

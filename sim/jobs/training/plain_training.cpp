// Plain training's torch side: the job itself (plain_training.hpp); its charge is in
// plain_training_cost.cpp.
#include "sim/jobs/training/plain_training.hpp"

#include "sim/jobs/training/epoch_loop.hpp"

namespace fedgrid {

TrainOutcome PlainTraining::run_torch(const JobInput& job) {
  using namespace jobs;
  models::Net& net = cached_net(job.model->spec, job.device);
  models::load_state(net, job.model->weights);
  net.train();
  LocalOptimizer optimizer(net.parameters(), job.optimizer);
  on_start(net);
  on_optimizer_made(net, optimizer);
  // A train-mode batch norm needs two values per channel: on a 1x1 map one sample throws, so
  // such nets leave a trailing batch of one out (as drop_last would).
  const bool drop_single = models::batchnorm_on_1x1(job.model->spec);
  const int64_t n = int64_t(job.train->size());
  const int passes = job.local_steps ? passes_begun(n, job.batch_size, job.local_steps, drop_single) : epochs_;
  TrainOutcome out = run_epochs(job, tensors_of(*job.dataset, job.device), *job.train,
                                {passes, 0, job.local_steps, drop_single},
                                [&](const torch::Tensor& x, const torch::Tensor& y, bool last_pass) {
    optimizer.zero_grad();
    const torch::Tensor loss = torch::nn::functional::cross_entropy(net.forward(x), y);
    BatchStep step{net, loss, loss, last_pass};
    add_penalty(step);
    step.objective.backward();
    after_backward(step);
    optimizer.step();
    return loss.item<double>();
  });
  on_finish(net, optimizer);
  out.weights = models::flatten_state(net);
  return out;
}

}  // namespace fedgrid

#include "sim/jobs/training/plain_training.hpp"

#include <map>
#include <typeinfo>

#include "sim/jobs/training/epoch_loop.hpp"

namespace fedgrid {

TrainOutcome PlainTraining::run(const JobInput& job) {
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

Charge PlainTraining::cost(const JobShape& shape, const TrainOutcome*) const {
  const double per_sample = models::model_cost(shape.spec).train_flops();
  const bool drop_single = models::batchnorm_on_1x1(shape.spec);
  ModelSteps steps =
      training_steps(shape.spec, shape.samples, shape.batch_size, epochs_, shape.local_steps, drop_single);
  if (shape.local_steps == 0) return {per_sample * double(shape.samples) * epochs_, epochs_, {std::move(steps)}};
  // Sized in mini-batches: charged batch by batch, the trainer's own plan.
  double flops = 0;
  for (const auto& [size, count] : steps.train_batches) flops += double(count) * (per_sample * double(size));
  return {flops, passes_begun(shape.samples, shape.batch_size, shape.local_steps, drop_single), {std::move(steps)}};
}

}  // namespace fedgrid

namespace fedgrid {

std::optional<FusibleTerms> PlainTraining::fusible() const {
  if (typeid(*this) != typeid(PlainTraining)) return std::nullopt;
  return FusibleTerms{epochs_};
}

}  // namespace fedgrid

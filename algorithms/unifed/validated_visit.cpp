#include "algorithms/unifed/validated_visit.hpp"

#include <limits>

#include "sim/jobs/epoch_loop.hpp"

namespace fedgrid::algorithms {

TrainOutcome ValidatedVisit::run(const JobInput& job) {
  using namespace jobs;
  const auto& spec = job.model->spec;
  models::Net& net = cached_net(spec, job.device);
  models::load_state(net, job.model->weights);
  net.train();
  auto optimizer = make_optimizer(net.parameters(), job.optimizer);
  const auto data = tensors_of(*job.dataset, job.device);
  double best_val = std::numeric_limits<double>::infinity();
  std::vector<float> best_weights;
  int since_best = 0;
  auto validate = [&](int) {
    double val = 0;
    {
      torch::NoGradGuard no_grad;
      net.eval();
      val = score(net, data, job.validation, spec.num_classes, job.device).loss;
      net.train();
    }
    if (val < best_val - rule_.min_delta) {
      best_val = val, best_weights = models::flatten_state(net), since_best = 0;
      return false;
    }
    return ++since_best >= rule_.patience;
  };
  TrainOutcome out = run_epochs(job, data, *job.train, {rule_.max_epochs, 0, 0, models::batchnorm_on_1x1(spec)},
                                [&](const torch::Tensor& x, const torch::Tensor& y, bool) {
    optimizer->zero_grad();
    torch::Tensor loss = torch::nn::functional::cross_entropy(net.forward(x), y);
    loss.backward();
    optimizer->step();
    return loss.item<double>();
  }, validate);
  out.weights = best_weights.empty() ? models::flatten_state(net) : std::move(best_weights);
  return out;
}

Charge ValidatedVisit::cost(const JobShape& shape, const TrainOutcome* done) const {
  const auto c = models::model_cost(shape.spec);
  const int epochs = done ? done->epochs : 0;
  const double validation_flops = c.forward_flops * double(shape.validation_samples);
  ModelSteps steps = training_steps(shape.spec, shape.samples, shape.batch_size, epochs, 0,
                                    models::batchnorm_on_1x1(shape.spec));
  steps.eval_samples = shape.validation_samples * epochs;  // the validation after every epoch
  return {(c.train_flops() * double(shape.samples) + validation_flops) * epochs, epochs, {std::move(steps)}};
}

}  // namespace fedgrid::algorithms

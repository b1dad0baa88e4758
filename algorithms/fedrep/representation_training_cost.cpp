// FedRep's local work charged (representation_training.hpp), and where the head lies: torch-free.
#include <stdexcept>

#include "algorithms/fedrep/representation_training.hpp"

namespace fedgrid::algorithms {

models::StateTensor head_of(const models::ModelSpec& spec, int64_t& offset, int64_t& size) {
  const int64_t parameters = models::model_cost(spec).parameters;
  const auto layout = models::state_layout(spec);
  int64_t at = 0;
  for (size_t t = 0; t < layout.size(); ++t) {
    at += layout[t].numel();
    if (at == parameters) {
      size = layout[t].numel() + layout[t - 1].numel();
      offset = parameters - size;
      return layout[t - 1];
    }
  }
  throw std::logic_error("the parameters of model " + spec.arch + " do not end at a tensor boundary");
}

Charge RepresentationTraining::cost(const JobShape& shape, const TrainOutcome*) const {
  const models::ModelCost c = models::model_cost(shape.spec);
  int64_t offset = 0, size = 0;
  head_of(shape.spec, offset, size);
  const double samples = double(shape.samples);
  const double head_pass = c.forward_flops + 2.0 * 2.0 * double(size);  // forward + the head's backward
  // timing.compute: profile: the body epochs as training steps, the head epochs as forward passes.
  ModelSteps steps = training_steps(shape.spec, shape.samples, shape.batch_size, body_epochs_, 0,
                                    models::batchnorm_on_1x1(shape.spec));
  steps.eval_samples = shape.samples * head_epochs_;
  return {samples * (head_pass * head_epochs_ + c.train_flops() * body_epochs_), head_epochs_ + body_epochs_,
          {std::move(steps)}};
}

}  // namespace fedgrid::algorithms

// UniFed's validated visit charged (validated_visit.hpp): torch-free; the visit itself is in
// validated_visit.cpp.
#include "algorithms/unifed/validated_visit.hpp"

namespace fedgrid::algorithms {

Charge ValidatedVisit::cost(const JobShape& shape, const TrainOutcome* done) const {
  const auto c = models::model_cost(shape.spec);
  const int epochs = done ? done->epochs : 0;
  const int64_t validated = rule_.patience > 0 ? shape.validation_samples : 0;
  const double validation_flops = c.forward_flops * double(validated);
  ModelSteps steps = training_steps(shape.spec, shape.samples, shape.batch_size, epochs, 0,
                                    models::batchnorm_on_1x1(shape.spec));
  steps.eval_samples = validated * epochs;  // the validation after every epoch
  return {(c.train_flops() * double(shape.samples) + validation_flops) * epochs, epochs, {std::move(steps)}};
}

}  // namespace fedgrid::algorithms

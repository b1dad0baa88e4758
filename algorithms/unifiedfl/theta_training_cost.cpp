// UnifiedFL's local epoch charged (theta_training.hpp): torch-free; the epoch itself is in
// theta_training.cpp.
#include "algorithms/unifiedfl/theta_training.hpp"

namespace fedgrid::unifiedfl {

Charge ThetaTraining::cost(const JobShape& shape, const TrainOutcome*) const {
  const bool drop_single = models::batchnorm_on_1x1(shape.spec);
  ModelSteps steps = training_steps(shape.spec, shape.samples, shape.batch_size, epochs_, 0, drop_single);
  const models::ModelCost c = models::model_cost(shape.spec);
  int64_t batches = 0;
  double flops = 0;
  for (const auto& [size, count] : steps.train_batches) {
    batches += count;
    flops += double(count) * double(size) * c.train_flops();
  }
  // Every parameter is modulated (forward + backward) and folded once a step.
  const double modulation = double(batches) * 3.0 * modulation_flops(c.parameters);
  return {flops + modulation, epochs_, {std::move(steps)}, modulation};
}

}  // namespace fedgrid::unifiedfl

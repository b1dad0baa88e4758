// Plain training's charge and fused form (plain_training.hpp); its training is in
// plain_training.cpp, the torch side.
#include <typeinfo>

#include "sim/jobs/training/plain_training.hpp"

namespace fedgrid {

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

std::optional<FusibleTerms> PlainTraining::fusible() const {
  if (typeid(*this) != typeid(PlainTraining)) return std::nullopt;
  return FusibleTerms{epochs_};
}

}  // namespace fedgrid

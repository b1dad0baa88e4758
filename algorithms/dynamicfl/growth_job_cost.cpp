// DynamicFL's local works (growth_job.hpp): the growth job's plan and charge, torch-free.
#include <algorithm>

#include "algorithms/dynamicfl/growth_job.hpp"

namespace fedgrid::algorithms {

GrowthTraining::GrowthTraining(const models::ModelSpec& spec, int epochs, GrowthPlan plan, int first_epoch)
    : epochs_(epochs), first_epoch_(first_epoch), plan_(std::move(plan)), sites_(models::conv_sites(spec)) {
  grown_ = models::top_sites(plan_.rank, sites_.size(), plan_.expansions);
}

Charge GrowthTraining::cost(const JobShape& shape, const TrainOutcome*) const {
  double grown_forward = models::model_cost(shape.spec).forward_flops, branches = 0;
  for (int g : grown_) {
    grown_forward += models::dbb_extra_flops(sites_[size_t(g)]);
    branches += models::dbb_extra_flops(sites_[size_t(g)]);
  }
  const int64_t recal_samples =
      grown_.empty() ? 0 : int64_t(plan_.recal_batches) * std::min<int64_t>(shape.batch_size, shape.samples);
  const double recal = double(recal_samples) * grown_forward;
  // A profile measures the plain model; the grown branches stay in FLOPs.
  ModelSteps steps = training_steps(shape.spec, shape.samples, shape.batch_size, epochs_, 0,
                                    models::batchnorm_on_1x1(shape.spec));
  steps.eval_samples = recal_samples;
  const double unprofiled = branches * (double(epochs_) * 3.0 * double(shape.samples) + double(recal_samples));
  return {double(epochs_) * 3.0 * grown_forward * double(shape.samples) + recal, epochs_, {std::move(steps)}, unprofiled};
}

}  // namespace fedgrid::algorithms

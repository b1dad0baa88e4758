// FedSKD's local work charged (mutual_job.hpp): both networks' training steps and the
// similarity maps, torch-free.
#include "algorithms/fedskd/mutual_job.hpp"

namespace fedgrid::algorithms {

Charge MutualLearning::cost(const JobShape& shape, const TrainOutcome*) const {
  const bool drop_single = models::batchnorm_on_1x1(shape.spec) || models::batchnorm_on_1x1(ktm_->spec);
  ModelSteps dam = training_steps(shape.spec, shape.samples, shape.batch_size, epochs_, shape.local_steps, drop_single);
  const int epochs = shape.local_steps > 0 ? passes_begun(shape.samples, shape.batch_size, shape.local_steps, drop_single)
                                           : epochs_;
  const double per_sample = models::model_cost(shape.spec).train_flops() + models::model_cost(ktm_->spec).train_flops();
  ModelSteps ktm = dam;
  ktm.spec = ktm_->spec;
  double flops = 0, similarity = 0;
  for (const auto& [size, count] : dam.train_batches) {
    const double maps = similarity_flops(shape.spec, ktm_->spec, plan_, size);
    flops += double(count) * (per_sample * double(size) + maps);
    similarity += double(count) * maps;
  }
  // Both networks step on every batch (profiled); the similarity maps stay in FLOPs.
  return {flops, epochs, {std::move(dam), std::move(ktm)}, similarity};
}

double similarity_flops(const models::ModelSpec& dam, const models::ModelSpec& ktm, const SkdPlan& plan,
                        int64_t batch) {
  if (plan.gamma == 0) return 0;
  const auto dam_taps = models::feature_taps(dam), ktm_taps = models::feature_taps(ktm);
  const double b = double(batch);
  double macs = 0;
  for (int l : plan.layers)
    for (const auto* taps : {&dam_taps, &ktm_taps}) {
      const auto& t = taps->at(size_t(l));
      const double c = double(t.channels);
      const double hw = double(dam_taps.at(size_t(l)).height * dam_taps.at(size_t(l)).width);
      if (plan.batch_level) macs += b * b * c * double(t.height * t.width);
      if (plan.pixel_level) macs += hw * hw * b * c;
    }
  return 3.0 * 2.0 * macs;
}

}  // namespace fedgrid::algorithms

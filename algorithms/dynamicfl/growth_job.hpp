#pragma once
// DynamicFL's two local works (Zhang et al. 2025, Sec. "Dynamic model re-parameterization";
// DyRep's growth and salience): the probe epoch on the plain model that measures every KxK
// conv's salience S = sum(grad * w), and the growth job that grows the convs a ranking puts
// first into diverse-branch blocks, recalibrates their batch norms, trains, and folds back.
#include <cstdint>
#include <vector>

#include "models/model_spec.hpp"
#include "sim/jobs/training/plain_training.hpp"

namespace fedgrid::algorithms {

// Plain training whose last epoch measures each KxK conv's salience, averaged over the
// epoch's backward passes (DyRep's signed metric). Charged as plain training.
class SalienceProbe : public PlainTraining {
 public:
  using PlainTraining::PlainTraining;
  const std::vector<double>& salience() const { return salience_; }  // per conv site; empty until run
  // Each an inline call of its torch side (growth_job.cpp; sim/jobs/local_work.hpp says why).
  TrainOutcome run(const JobInput& job) override { return run_torch(job); }
  TrainOutcome run_torch(const JobInput& job);

 protected:
  void on_start(models::Net& net) override { on_start_torch(net); }
  void after_backward(BatchStep& step) override { after_backward_torch(step); }
  void on_start_torch(models::Net& net);
  void after_backward_torch(BatchStep& step);

 private:
  models::Net* net_ = nullptr;
  std::vector<double> sum_, salience_;
  int64_t measured_ = 0;
};

struct GrowthPlan {
  int expansions = 0;        // convs to grow
  std::vector<double> rank;  // per conv site: S^g from the probe epoch, or last round's S^l
  int recal_batches = 20;    // mini-batches that recalibrate the new blocks' batch norms
  uint64_t seed = 0;         // the new branches' initial weights
};

// Grows the `plan.expansions` convs `plan.rank` scores highest (models::top_sites), trains
// `epochs` epochs (shuffles continuing from epoch `first_epoch`) measuring the local salience
// S^l over the last, and folds back to the plain shape. Charged as the batch-norm
// recalibration plus `epochs` of the grown model (models::dbb_extra_flops per grown conv).
class GrowthTraining : public LocalWork {
 public:
  GrowthTraining(const models::ModelSpec& spec, int epochs, GrowthPlan plan, int first_epoch = 0);
  const std::vector<int>& grown() const { return grown_; }           // conv sites, best first
  const std::vector<double>& salience() const { return salience_; }  // S^l per site; empty until run
  TrainOutcome run(const JobInput& job) override { return run_torch(job); }  // growth_job.cpp
  TrainOutcome run_torch(const JobInput& job);
  Charge cost(const JobShape& shape, const TrainOutcome* done) const override;  // growth_job_cost.cpp

 private:
  int epochs_, first_epoch_;
  GrowthPlan plan_;
  std::vector<models::ConvSite> sites_;
  std::vector<int> grown_;
  std::vector<double> salience_;
};

}  // namespace fedgrid::algorithms

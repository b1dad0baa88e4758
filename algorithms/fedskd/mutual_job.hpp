#pragma once
// FedSKD's local work at a receiver (Weng, Cai, Zhou 2025, Sec. II-B, Eq. 2): its own model (the
// DAM) and the received copy of another's (the KTM, its classifier frozen) train together on
// the receiver's data with CE(DAM) + gamma * L_SKD(DAM, KTM) + CE(KTM); the KTM is dropped
// afterwards. As long as a plain job (training.local_steps mini-batches, else the epochs
// given); charged batch by batch on the receiver: both models' training (the receiver pays
// for the sender's architecture) plus the similarity matrices (similarity_flops).
#include <cstdint>
#include <vector>

#include "models/model_spec.hpp"
#include "sim/core/model.hpp"
#include "sim/jobs/local_work.hpp"
#include "sim/jobs/training/plain_training.hpp"

namespace fedgrid::algorithms {

struct SkdPlan {
  double gamma = 1;  // 0: both cross-entropies, no distillation
  bool batch_level = true, pixel_level = true;
  std::vector<int> layers;  // tapped stages, models::feature_taps indices (ResNet: 0..3 = layer1..4)
};

// The DAM's Adam state kept from one job to the next (algorithm.persistent_adam), per parameter
// in the DAM's order: the step count, then exp_avg and exp_avg_sq flattened; empty before the
// hospital's first step.
using AdamState = std::vector<double>;

class MutualLearning : public LocalWork {
 public:
  // `received` and `dam_adam` (null: a fresh Adam every job) must outlive the job.
  MutualLearning(const Model* received, SkdPlan plan, int epochs, AdamState* dam_adam = nullptr)
      : ktm_(received), plan_(std::move(plan)), epochs_(epochs), dam_adam_(dam_adam) {}
  // run()'s torch side is in mutual_job.cpp, cost() in mutual_job_cost.cpp (sim/jobs/local_work.hpp says why).
  TrainOutcome run(const JobInput& job) override { return run_torch(job); }
  TrainOutcome run_torch(const JobInput& job);
  Charge cost(const JobShape& shape, const TrainOutcome* done) const override;

 private:
  const Model* ktm_;
  SkdPlan plan_;
  int epochs_;
  AdamState* dam_adam_;
};

// Self-consolidation with algorithm.persistent_adam: the DAM alone, plain training whose Adam
// starts from `dam_adam` and is kept there (it must outlive the job).
class KeptAdamTraining : public PlainTraining {
 public:
  KeptAdamTraining(int epochs, AdamState* dam_adam) : PlainTraining(epochs), dam_adam_(dam_adam) {}

 protected:
  void on_optimizer_made(models::Net& net, jobs::LocalOptimizer& optimizer) override {
    on_optimizer_made_torch(net, optimizer);
  }
  void on_finish(models::Net& net, jobs::LocalOptimizer& optimizer) override { on_finish_torch(net, optimizer); }
  void on_optimizer_made_torch(models::Net& net, jobs::LocalOptimizer& optimizer);
  void on_finish_torch(models::Net& net, jobs::LocalOptimizer& optimizer);

 private:
  AdamState* dam_adam_;
};

// FLOPs of the similarity matrices of one batch of `batch` samples: each tapped stage's Gram
// matrices at the planned levels (batch: b x b over c*h*w; pixel: hw x hw over b*c; at the DAM's
// map size), for both networks, forward and backward (3x, as training is charged).
double similarity_flops(const models::ModelSpec& dam, const models::ModelSpec& ktm, const SkdPlan& plan,
                        int64_t batch);

}  // namespace fedgrid::algorithms

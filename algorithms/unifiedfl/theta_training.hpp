#pragma once
// UnifiedFL's local work (Pala & Rekik 2025, Sec. 4.2 and 5.5): one epoch over the hospital's
// data in the scenario's mini-batches; every step runs the forward pass with the private
// weights modulated by Theta, takes an AdamW step on Theta alone, then folds the modulation
// into the private weights with the new Theta (the authors' update_buffers). The job returns
// the folded private state as its model and the trained Theta through `theta_out`.
// Charged as the model's training plus the element-wise modulation of every modulated value
// three times a step (forward, its backward, the fold).
#include <vector>

#include "algorithms/unifiedfl/theta.hpp"
#include "sim/jobs/local_work.hpp"

namespace fedgrid::unifiedfl {

struct ThetaOptimizer {
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, weight_decay = 1e-2;  // AdamW, the paper's Sec. 5.5
};

class ThetaTraining : public LocalWork {
 public:
  // `theta` and `theta_out` must outlive the job; `theta_out` is written when it ends.
  ThetaTraining(const std::vector<float>& theta, std::vector<float>& theta_out, ThetaLayout layout, uint64_t group_seed,
                ThetaOptimizer optimizer, int epochs)
      : theta_(theta), theta_out_(theta_out), layout_(layout), seed_(group_seed), optimizer_(optimizer),
        epochs_(epochs) {}
  // run()'s torch side is theta_training.cpp, cost() theta_training_cost.cpp
  // (sim/jobs/local_work.hpp says why).
  TrainOutcome run(const JobInput& job) override { return run_torch(job); }
  TrainOutcome run_torch(const JobInput& job);
  Charge cost(const JobShape& shape, const TrainOutcome* done) const override;

 private:
  const std::vector<float>& theta_;
  std::vector<float>& theta_out_;
  ThetaLayout layout_;
  uint64_t seed_;
  ThetaOptimizer optimizer_;
  int epochs_;
};

// FLOPs of one modulation of `values` weights: z (a multiply, an add), |z|, s + |z|, s * z, the
// division, and the two gathers.
inline double modulation_flops(int64_t values) { return 8.0 * double(values); }

}  // namespace fedgrid::unifiedfl

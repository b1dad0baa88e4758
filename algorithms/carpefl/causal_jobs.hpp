#pragma once
// A CarPe-FL hospital's two jobs (Shin et al. 2026): the latent statistics of a refresh round
// and the round's local training. Torch-free: torch stays in causal_jobs.cpp.
#include "sim/jobs/local_work.hpp"

namespace fedgrid::carpefl {

// The mean and covariance (divisor n) of the encoder's latents z over the hospital's training
// split, eval mode, no gradients. The outcome's `weights` carry them: d means, then the d x d
// covariance row-major. Charged as one forward pass over the samples.
class LatentStatistics : public LocalWork {
 public:
  // Each job's run() is an inline call of its torch side (causal_jobs.cpp); cost() is in
  // causal_jobs_cost.cpp (sim/jobs/local_work.hpp says why).
  TrainOutcome run(const JobInput& job) override { return run_torch(job); }
  TrainOutcome run_torch(const JobInput& job);
  Charge cost(const JobShape& shape, const TrainOutcome* done) const override;
  std::string needs_real_training() const override { return "computes latent statistics"; }
};

// One round of local training (Sec. 4.4): cross-entropy + (mu/2)||theta_sh - theta_k||^2 (the
// shared part, anchored at the received cluster model), with the job's optimiser
// (training.optimizer, training.weight_decay) at the job's rate: the engine's
// training.lr_schedule value for the round, the only schedule. The paper's third term, a
// penalty on the edge-indexed biases of edges the backbone excludes, is left out: under the
// backbone's hard mask those biases get no gradient and are zeroed at every aggregation, so
// the penalty is zero at every step (algorithms/carpefl/README.md).
class CausalTraining : public LocalWork {
 public:
  CausalTraining(int epochs, double mu) : epochs_(epochs), mu_(mu) {}
  TrainOutcome run(const JobInput& job) override { return run_torch(job); }
  TrainOutcome run_torch(const JobInput& job);
  Charge cost(const JobShape& shape, const TrainOutcome* done) const override;

 private:
  int epochs_;
  double mu_;
};

}  // namespace fedgrid::carpefl

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
  TrainOutcome run(const JobInput& job) override;
  Charge cost(const JobShape& shape, const TrainOutcome* done) const override;
  std::string needs_real_training() const override { return "computes latent statistics"; }
};

// One round of local training (Sec. 4.5): cross-entropy + (mu/2)||theta_sh - theta_k||^2 (the
// shared part, anchored at the received cluster model) + gamma sum_{u != v, G[u,v] = 0} |B^(t)[u,v]|
// (edge-indexed biases the backbone excludes), with AdamW at training.lr x `lr_factor` (the
// round's cosine decay) and training.weight_decay.
class CausalTraining : public LocalWork {
 public:
  CausalTraining(int epochs, double lr_factor, double mu, double gamma)
      : epochs_(epochs), lr_factor_(lr_factor), mu_(mu), gamma_(gamma) {}
  TrainOutcome run(const JobInput& job) override;
  Charge cost(const JobShape& shape, const TrainOutcome* done) const override;

 private:
  int epochs_;
  double lr_factor_, mu_, gamma_;
};

}  // namespace fedgrid::carpefl

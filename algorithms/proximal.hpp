#pragma once
// The proximal term of FedProx (Li et al. 2020) as local work, for every method that trains
// F_k(w) + (mu/2)||w - w_0||^2: FedProx and FedAMP (w_0 the model the job starts from), FedAsync
// (mu = rho), Ditto's personal objective h_k(v; w) (w_0 the round's global model, given).
// Plain training otherwise (one hook overridden); parameters are regularised, buffers are not.
// Torch-free header: the anchor's tensors live in proximal.cpp (the torch side), the charge and
// fused form in proximal_cost.cpp (sim/jobs/local_work.hpp says why).
#include <memory>
#include <vector>

#include "sim/jobs/training/plain_training.hpp"

namespace fedgrid::algorithms {

class ProximalTraining : public PlainTraining {
 public:
  // anchor: a flat state (parameters first, in the network's order) that outlives the job;
  // null: the model the job starts from.
  ProximalTraining(int epochs, double mu, const std::vector<float>* anchor = nullptr)
      : PlainTraining(epochs), mu_(mu), anchor_flat_(anchor) {}
  std::optional<FusibleTerms> fusible() const override;  // plain training's terms plus mu and the anchor

 protected:
  void on_start(models::Net& net) override { on_start_torch(net); }
  void add_penalty(BatchStep& step) override { add_penalty_torch(step); }
  void on_start_torch(models::Net& net);
  void add_penalty_torch(BatchStep& step);

 private:
  // The anchor's parameters as tensors, on the job's device: made by the job (on_start), so a
  // work that never trains (timing-only) holds none; shared_ptr, whose deleter comes with it,
  // so that this torch-free header can destroy one.
  struct Anchor;
  double mu_;
  const std::vector<float>* anchor_flat_;
  std::shared_ptr<Anchor> anchor_;
};

}  // namespace fedgrid::algorithms

#pragma once
// Plain local training: E epochs (or training.local_steps mini-batches) of cross-entropy with
// the scenario's optimiser, through the one shared epoch loop (sim/jobs/training/epoch_loop.hpp). The
// local work most algorithms use as it is; a variant that changes one thing (FedProx's
// proximal term, DynamicFL's salience probe) subclasses it and overrides one hook, as
// pfl-research's FedProx plugs its proximal step into a shared multi-epoch loop.
#include "sim/jobs/local_work.hpp"


namespace fedgrid {

struct BatchStep;  // sim/jobs/training/epoch_loop.hpp: the net, the batch's loss and objective (torch)
namespace models {
class Net;
}
namespace jobs {
class LocalOptimizer;  // sim/jobs/training/optimizer.hpp (torch)
}

class PlainTraining : public LocalWork {
 public:
  explicit PlainTraining(int epochs) : epochs_(epochs) {}
  TrainOutcome run(const JobInput& job) override { return run_torch(job); }  // local_work.hpp: why
  TrainOutcome run_torch(const JobInput& job);
  // train_flops x samples x epochs; with training.local_steps, batch by batch (batch_plan).
  Charge cost(const JobShape& shape, const TrainOutcome* done) const override;
  // Plain training fuses; a subclass that overrides a hook trains something else, so it fuses
  // only where it says so itself (ProximalTraining).
  std::optional<FusibleTerms> fusible() const override;

 protected:
  virtual void on_start(models::Net&) {}      // after the starting state is loaded
  virtual void add_penalty(BatchStep&) {}     // before backward: objective += a regulariser
  virtual void after_backward(BatchStep&) {}  // gradients are there, the step not taken yet
  // The optimiser over net.parameters(), before its first step (to restore a kept state) and
  // after its last (to keep it).
  virtual void on_optimizer_made(models::Net&, jobs::LocalOptimizer&) {}
  virtual void on_finish(models::Net&, jobs::LocalOptimizer&) {}
  int epochs_;
};

}  // namespace fedgrid

#pragma once
// UniFed's "dynamic update" visit (Hassani & Rekik 2024, Sec. 2; after Prechelt's early
// stopping): train epoch by epoch, measuring the loss on the node's validation split after
// each; stop once it has not improved by more than `min_delta` for `patience` epochs in a row,
// or after `max_epochs`; return the weights of the best validation epoch. Its length is known
// only when it ends, so it is charged then: epochs x (training on the train split + a forward
// pass over the validation split).
#include "sim/jobs/local_work.hpp"

namespace fedgrid::algorithms {

struct StoppingRule {
  int patience = 7, max_epochs = 50;  // patience 0: no validation, exactly max_epochs epochs
  double min_delta = 0.0;
  bool restore_best = true;  // false: the last epoch's weights (the authors' code)
};

// SGD's momentum buffers a node keeps from one visit to the next (the authors' code holds one
// optimizer per hospital for the whole run): the buffers of the net's parameters, in their
// order, flattened; empty before the node's first step.
using MomentumBuffers = std::vector<double>;

class ValidatedVisit : public LocalWork {
 public:
  // `momentum`: null for a fresh optimizer every visit (the paper: only weights and a score
  // travel); else the node's buffers, loaded before the first step and saved after the last.
  explicit ValidatedVisit(StoppingRule rule, MomentumBuffers* momentum = nullptr) : rule_(rule), momentum_(momentum) {}
  // run()'s torch side is validated_visit.cpp, cost() validated_visit_cost.cpp
  // (sim/jobs/local_work.hpp says why).
  TrainOutcome run(const JobInput& job) override { return run_torch(job); }
  TrainOutcome run_torch(const JobInput& job);
  Charge cost(const JobShape& shape, const TrainOutcome* done) const override;
  bool charged_after_run() const override { return true; }
  std::string needs_real_training() const override { return "stops local training on validation loss"; }

 private:
  StoppingRule rule_;
  MomentumBuffers* momentum_;
};

}  // namespace fedgrid::algorithms

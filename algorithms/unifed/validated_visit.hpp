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
  int patience = 7, max_epochs = 50;
  double min_delta = 0.0;
};

class ValidatedVisit : public LocalWork {
 public:
  explicit ValidatedVisit(StoppingRule rule) : rule_(rule) {}
  TrainOutcome run(const JobInput& job) override;
  Charge cost(const JobShape& shape, const TrainOutcome* done) const override;
  bool charged_after_run() const override { return true; }
  std::string needs_real_training() const override { return "stops local training on validation loss"; }

 private:
  StoppingRule rule_;
};

}  // namespace fedgrid::algorithms

#pragma once
// Streaming aggregation. A hospital's training may wait until the server folds its update into
// an aggregate (Hospital::train_later): its simulated charge is taken at once, since the cost
// follows from the job's shape, and the real job runs when the fold reaches it. A round of N
// hospitals then holds a few trained models at a time instead of N. The fold keeps the order
// of the updates (by hospital id), so the sum is, byte for byte, the one held updates give,
// whatever order the simulated uploads arrived in.
#include <functional>
#include <vector>

#include "sim/core/model.hpp"

namespace fedgrid {

class DeferredTraining {
 public:
  virtual ~DeferredTraining() = default;
  virtual void start() = 0;      // hands the job to the executor and returns
  virtual Update finish() = 0;   // waits for the job: the update with its weights and losses (once)
  virtual int ahead() const = 0;  // jobs that may run beyond the one being folded
};

// Calls fold(u) for every update in order, each holding its weights: deferred ones are trained
// here, at most ahead() started beyond the one folded, and each is dropped once folded.
void for_each_trained(const std::vector<Update>& updates, const std::function<void(const Update&)>& fold);

}  // namespace fedgrid

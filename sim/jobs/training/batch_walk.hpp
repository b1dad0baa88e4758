#pragma once
// The order in which a job meets its mini-batches, for the one epoch loop (epoch_loop.hpp) and
// for each member of a fused job (sim/jobs/fused/fused_training.cpp), so that both walk a job's
// samples alike. Torch-free.
#include <cstdint>
#include <vector>

#include "data/dataset.hpp"

namespace fedgrid::jobs {

// `passes` passes over a job's samples, each reshuffling the previous order with the job's seed
// for epoch first_epoch + pass (a job that continues another's epochs continues its shuffles);
// at most `steps` batches in all when steps > 0; a trailing batch of one left out when
// `drop_single` (batch_plan's rule: a train-mode batch norm on a 1x1 map needs two samples).
struct LoopPlan {
  int passes = 1;
  int first_epoch = 0;
  int64_t steps = 0;
  bool drop_single = false;
};

class BatchWalk {
 public:
  BatchWalk(const data::Indices& samples, uint64_t seed, int64_t batch_size, const LoopPlan& plan);

  struct Batch {
    const int64_t* samples = nullptr;  // indices into the dataset
    int64_t size = 0;                  // 0: none
    uint64_t epoch = 0;                // first_epoch + pass, which keys the batch's augmentation
    explicit operator bool() const { return size > 0; }
  };
  // Starts the next pass (reshuffled); false once every pass has begun.
  bool begin_pass();
  // The current pass's next batch; none at the pass's end.
  Batch next_in_pass();
  // The next batch of any pass, passes begun as needed; none once the job has no batch left.
  Batch next();

 private:
  std::vector<int64_t> order_;
  uint64_t seed_;
  int64_t batch_;
  LoopPlan plan_;
  int pass_ = -1;  // the current pass; -1 before the first
  int64_t start_ = 0, taken_ = 0;
};

}  // namespace fedgrid::jobs

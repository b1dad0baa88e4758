#include "sim/jobs/training/batch_walk.hpp"

#include <algorithm>

#include "data/rng.hpp"

namespace fedgrid::jobs {

BatchWalk::BatchWalk(const data::Indices& samples, uint64_t seed, int64_t batch_size, const LoopPlan& plan)
    : order_(samples), seed_(seed), batch_(batch_size), plan_(plan) {}

bool BatchWalk::begin_pass() {
  if (pass_ + 1 >= plan_.passes) return false;
  ++pass_;
  Rng(mix_seed(seed_, uint64_t(plan_.first_epoch + pass_))).shuffle(order_);
  start_ = 0;
  return true;
}

BatchWalk::Batch BatchWalk::next_in_pass() {
  const int64_t n = int64_t(order_.size());
  if (pass_ < 0 || start_ >= n) return {};
  const int64_t len = std::min(batch_, n - start_);
  if (len == 1 && start_ > 0 && plan_.drop_single) return {};
  if (plan_.steps > 0 && taken_ >= plan_.steps) return {};
  Batch b{order_.data() + start_, len, uint64_t(plan_.first_epoch + pass_)};
  start_ += batch_, ++taken_;
  return b;
}

BatchWalk::Batch BatchWalk::next() {
  for (;;) {
    if (const Batch b = next_in_pass()) return b;
    if (!begin_pass()) return {};
  }
}

}  // namespace fedgrid::jobs

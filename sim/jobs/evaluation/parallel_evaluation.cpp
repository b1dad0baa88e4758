#include "sim/jobs/evaluation/parallel_evaluation.hpp"

#include <algorithm>

#include "sim/jobs/mpi/job_exchange.hpp"

namespace fedgrid {

ParallelEvaluation::~ParallelEvaluation() {
  for (auto& q : queued_)
    for (size_t i = 0; i < q.parts.size(); ++i)
      if (q.parts[i].valid() && !q.remote[i]) q.parts[i].wait();  // another rank's may never come
}

size_t ParallelEvaluation::add(const models::ModelSpec& spec, const std::vector<float>& weights,
                               const data::Dataset& dataset, const data::Indices* indices) {
  Queued q;
  q.classes = spec.num_classes;
  const int64_t n = indices ? int64_t(indices->size()) : dataset.size();
  // One batch per job: a job reloads the weights (~1 ms for the cnn) and scores ~100 ms.
  const int64_t batch = eval_batch(device_);
  for (int64_t first = 0; first < n; first += batch) {
    const uint64_t part = exchange_ ? exchange_->next_evaluation_part() : 0;
    if (part && !exchange_->owns(part)) {
      q.parts.push_back(exchange_->expect_part(part));
      q.remote.push_back(part);
      continue;
    }
    q.parts.push_back(executor_.submit(
        [&spec, &weights, &dataset, indices, first, n, batch, device = device_, part, exchange = exchange_] {
          try {
            EvalPart scored =
                run_evaluation_part(spec, weights, dataset, indices, first, std::min(batch, n - first), device);
            if (part) exchange->publish_part(part, scored);
            return scored;
          } catch (const std::exception& e) {
            if (part) exchange->publish_failure(part, e.what(), true);
            throw;
          }
        }));
    q.remote.push_back(0);
  }
  queued_.push_back(std::move(q));
  return queued_.size() - 1;
}

EvalOutcome ParallelEvaluation::get(size_t ticket) {
  Queued& q = queued_.at(ticket);
  std::vector<EvalPart> parts;
  for (size_t i = 0; i < q.parts.size(); ++i) {
    if (q.remote[i]) exchange_->awaiting_part(q.remote[i]);
    parts.push_back(q.parts[i].get());
  }
  q.parts.clear();
  return combine_evaluation(parts, q.classes);
}

}  // namespace fedgrid

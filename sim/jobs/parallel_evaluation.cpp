#include "sim/jobs/parallel_evaluation.hpp"

#include <algorithm>

namespace fedgrid {

ParallelEvaluation::~ParallelEvaluation() {
  for (auto& q : queued_)
    for (auto& f : q.parts)
      if (f.valid()) f.wait();
}

size_t ParallelEvaluation::add(const models::ModelSpec& spec, const std::vector<float>& weights,
                               const data::Dataset& dataset, const data::Indices* indices) {
  Queued q;
  q.classes = spec.num_classes;
  const int64_t n = indices ? int64_t(indices->size()) : dataset.size();
  // One batch per job: a job reloads the weights (~1 ms for the cnn) and scores ~100 ms.
  const int64_t batch = eval_batch(device_);
  for (int64_t first = 0; first < n; first += batch)
    q.parts.push_back(executor_.submit([&spec, &weights, &dataset, indices, first, n, batch, device = device_] {
      return run_evaluation_part(spec, weights, dataset, indices, first, std::min(batch, n - first), device);
    }));
  queued_.push_back(std::move(q));
  return queued_.size() - 1;
}

EvalOutcome ParallelEvaluation::get(size_t ticket) {
  Queued& q = queued_.at(ticket);
  std::vector<EvalPart> parts;
  for (auto& f : q.parts) parts.push_back(f.get());
  q.parts.clear();
  return combine_evaluation(parts, q.classes);
}

}  // namespace fedgrid

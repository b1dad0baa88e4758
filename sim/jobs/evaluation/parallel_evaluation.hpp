#pragma once
// Evaluations spread over every executor worker: each is cut into its batches (eval_batch),
// one job per batch, and its parts are combined in sample order, so the figures are those of
// one thread scoring it alone, whatever the worker count or the order the jobs finish in.
// Under training.executor: mpi the batches are spread over the ranks too (job_exchange.hpp):
// part k is scored by rank k mod N and its figures sent to the others.
#include <cstddef>
#include <future>
#include <vector>

#include "sim/jobs/compute.hpp"
#include "sim/jobs/executor.hpp"

namespace fedgrid {

class JobExchange;  // sim/jobs/mpi/job_exchange.hpp

class ParallelEvaluation {
 public:
  // `exchange`: null, or the MPI executor's.
  ParallelEvaluation(Executor& executor, ComputeDevice device, JobExchange* exchange = nullptr)
      : executor_(executor), device_(device), exchange_(exchange) {}
  // Waits for jobs never collected (an exception on the way): they refer to the caller's data.
  ~ParallelEvaluation();
  ParallelEvaluation(const ParallelEvaluation&) = delete;
  ParallelEvaluation& operator=(const ParallelEvaluation&) = delete;
  // Queues `weights` of `spec` on `indices` of `dataset` (null: all of it); returns the ticket
  // for get(). Everything referred to must outlive get().
  size_t add(const models::ModelSpec& spec, const std::vector<float>& weights, const data::Dataset& dataset,
             const data::Indices* indices);
  // Waits for evaluation `ticket` and combines its parts.
  EvalOutcome get(size_t ticket);

 private:
  struct Queued {
    int classes = 0;
    std::vector<std::future<EvalPart>> parts;
    std::vector<uint64_t> remote;  // by part: its number when another rank scores it, else 0
  };
  Executor& executor_;
  ComputeDevice device_;
  JobExchange* exchange_;
  std::vector<Queued> queued_;
};

}  // namespace fedgrid

#pragma once
// Where a training job computes (DESIGN: "where and how a job computes is the executor's
// business"): alone on an executor worker, or, under training.fuse, held until the simulation
// first needs one of them and then trained with the other held jobs of its fuse key as one
// batched model (sim/jobs/fused/fused_training.hpp), at most `fuse_limit` to a fused job. Which jobs
// fuse follows from the order the simulation submits and waits, never from the workers or the
// wall clock, so a fused run repeats byte for byte. Algorithms see none of it: they hand over
// the same LocalWork, and its simulated cost is charged the same either way. Torch-free; used
// from the simulation's thread only.
//
// Under training.executor: mpi (job_exchange.hpp) the queue numbers the jobs that may run on
// another rank, those whose work is exactly the training its fusible() terms describe (by that
// contract, run() changes nothing but its outcome); this rank runs, and fuses, only the ones it
// owns, and takes the others' outcomes from the exchange. Every other work runs on every rank:
// its run() may write the algorithm's state (DynamicFL's salience, FedSKD's kept Adam moments).
#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sim/jobs/busy_clock.hpp"
#include "sim/jobs/executor.hpp"
#include "sim/jobs/local_work.hpp"

namespace fedgrid {

class JobExchange;  // sim/jobs/mpi/job_exchange.hpp

// training.fuse -> the most jobs one fused job trains (0: none fuse): off 0, auto the device's
// choice (fuse_auto_limit), a count that many.
int fuse_limit_of(Fuse setting, ComputeDevice device);
// What "auto" picks: on a GPU many (launch-bound small models gain the most); on a CPU none,
// where bench/fused_cpu.sh finds that fusion does not pay.
int fuse_auto_limit(ComputeDevice device);

class TrainingQueue {
 public:
  // `exchange`: null, or the MPI executor's, which must outlive the queue.
  TrainingQueue(Executor& executor, BusyClock& busy, int fuse_limit, JobExchange* exchange = nullptr);
  ~TrainingQueue();
  TrainingQueue(const TrainingQueue&) = delete;
  TrainingQueue& operator=(const TrainingQueue&) = delete;

  struct Ticket {
    std::future<TrainOutcome> result;
    uint64_t id = 0;  // 0: running or run (never held)
    uint64_t job = 0;  // its number among the jobs spread over MPI ranks; 0: not spread
  };
  // `work` and the pointers in `job` must stay valid until the result is taken; `keep_alive`
  // lives as long as the job.
  Ticket submit(LocalWork& work, const JobInput& job, std::shared_ptr<const void> keep_alive = {});
  // Call before waiting on `t`: if it is held, every held job starts now (and the MPI executor
  // knows which job this rank waits on).
  void launch(const Ticket& t);

  int fuse_limit() const { return limit_; }
  // The MPI executor's exchange, which evaluations spread their batches through too; or null.
  JobExchange* exchange() const { return exchange_; }
  // Jobs that ran inside fused jobs, and the fused jobs (perf.json).
  int64_t fused_jobs() const { return fused_jobs_; }
  int64_t fused_members() const { return fused_members_; }
  // Jobs another MPI rank ran (training.executor: mpi; perf.json).
  int64_t jobs_on_other_ranks() const { return jobs_on_other_ranks_; }

 private:
  struct Held;
  void launch_all();
  void run_alone(LocalWork& work, const JobInput& job, std::shared_ptr<const void> keep_alive,
                 std::promise<TrainOutcome> promise, uint64_t spread);

  Executor& executor_;
  BusyClock& busy_;
  int limit_;
  JobExchange* exchange_;
  uint64_t next_id_ = 1, next_spread_ = 1;
  std::map<std::string, std::vector<std::shared_ptr<Held>>> held_;  // by fuse key, in submission order
  std::set<uint64_t> held_ids_;
  std::set<std::string> said_unfused_;  // archs already reported as unfusible
  int64_t fused_jobs_ = 0, fused_members_ = 0, jobs_on_other_ranks_ = 0;
};

}  // namespace fedgrid

#pragma once
// `mpirun -np N fedgrid run SCENARIO` with training.executor: mpi: this process as one rank of
// the launch (sim/jobs/mpi/job_exchange.hpp). Every rank runs the same simulation; rank 0 alone
// writes the outputs, checkpoints and progress, the others write into a scratch folder they
// remove at the end and log warnings only. Refused (exit 2, naming the key) without an MPI
// launcher, in a build without MPI, and for timing-only runs, which train nothing to spread.
#include <functional>
#include <memory>
#include <string>

#include "sim/engine/run.hpp"
#include "sim/jobs/mpi/job_exchange.hpp"
#include "sim/scenario/scenario.hpp"

namespace fedgrid {

// Whether this process is a rank above 0 of an MPI launch of `s` (training.executor: mpi), told
// by the launcher's environment before MPI starts: rank 0 alone claims and writes the output
// folder (run.json included), so that no rank finds another's files there.
bool launched_as_follower_rank(const Scenario& s);

class MpiRun {
 public:
  // Joins the launch (one GPU a rank: CUDA_VISIBLE_DEVICES is set from the local rank when it
  // is unset and the machine has GPUs) and points `s` and `options` at this rank's share.
  // Throws InputError.
  MpiRun(Scenario& s, RunOptions& options);
  ~MpiRun();
  MpiRun(const MpiRun&) = delete;
  MpiRun& operator=(const MpiRun&) = delete;

  bool leads() const { return exchange_->rank() == 0; }
  // Runs `body` (the run and its report) on this rank; the exit code. A failure before round 1
  // the ranks agreed on ends every rank with 2, said once by rank 0; one after it ends the
  // whole launch (MPI_Abort) with the code this rank's error gets.
  int run(const std::function<int()>& body);

 private:
  std::unique_ptr<JobExchange> exchange_;
  std::string scratch_;  // rank > 0: its output folder
};

}  // namespace fedgrid

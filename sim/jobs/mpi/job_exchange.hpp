#pragma once
// training.executor: mpi. Every rank of an MPI launch simulates the same run (same scenario,
// seed, data, platform and algorithm), so every rank submits the same training jobs in the same
// order and numbers them alike (TrainingQueue numbers them, 1, 2, ...). Job k is run by rank
// k mod N alone, on its own executor; its outcome goes to every other rank, whose ticket for
// job k is fulfilled when it arrives. Each job carries its own seed, so the outcome is the
// same bytes wherever it ran, and every rank goes on identically: outputs do not depend on
// the rank count (docs/guide/mpi-executor.md).
//
// One communication thread per rank alone calls MPI once the ranks have agreed on their
// set-up (agree_set_up): it sends queued outcomes to the others and delivers the ones that
// arrive, early arrivals kept until their ticket asks. Torch-free, MPI-free: the MPI calls
// live in fedgrid's MPI module (sim/mpi/mpi_world.hpp).
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "sim/jobs/compute.hpp"
#include "sim/mpi/mpi_world.hpp"

namespace fedgrid {

class JobExchange {
 public:
  // Joins the launch through the MPI module (open_mpi_world). Throws std::runtime_error saying
  // why it cannot (no MPI in this build).
  static std::unique_ptr<JobExchange> open_mpi();
  explicit JobExchange(std::unique_ptr<MpiWorld> world);
  // Without finish(): the communication thread is stopped, MPI left as it is (a failing run
  // ends through abort()).
  ~JobExchange();
  JobExchange(const JobExchange&) = delete;
  JobExchange& operator=(const JobExchange&) = delete;

  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  int owner(uint64_t job) const { return int(job % uint64_t(ranks_)); }
  bool owns(uint64_t job) const { return owner(job) == rank_; }

  // Collective, once on every rank after its set-up, before round 1: the lowest rank that
  // could not set up (failed), with its message; nullopt when every rank is ready. Starts the
  // communication thread when every rank is.
  std::optional<std::pair<int, std::string>> agree_set_up(bool failed, const std::string& message);
  // Every rank set up and the run is under way (a failure now cannot be agreed on: abort()).
  bool running() const { return thread_.joinable(); }

  // Evaluation parts (sim/jobs/evaluation/parallel_evaluation.hpp) are spread the same way, numbered
  // apart from training jobs (from the simulation's thread, in the order it asks for them).
  uint64_t next_evaluation_part() { return next_part_++; }
  void publish_part(uint64_t part, const EvalPart& scored);
  std::future<EvalPart> expect_part(uint64_t part);
  void awaiting_part(uint64_t part);
  // Evaluation parts this rank took from the others (perf.json).
  int64_t parts_from_others() const { return parts_from_others_; }

  // From the worker thread that ran an owned job: its outcome (or why it failed) for every
  // other rank.
  void publish(uint64_t job, const TrainOutcome& outcome);
  void publish_failure(uint64_t job, const std::string& what, bool evaluation_part = false);
  // Another rank's job: its outcome, once it arrives.
  std::future<TrainOutcome> expect(uint64_t job);
  // The simulation is about to wait on `job`: a rank stopped by a signal (mpirun ending the
  // launch after another rank died) names it on stderr.
  void awaiting(uint64_t job);

  // Every rank, at the end of a run: every outcome delivered everywhere, a barrier, MPI_Finalize.
  void finish();
  // Ends the whole launch with `code` (a run that failed on this rank only).
  [[noreturn]] void abort(int code);

  // What one owned job sends (weights at 4 bytes a value, losses at 8, a 45-byte header).
  static size_t message_bytes(const TrainOutcome& outcome);

 private:
  // Outcomes of one kind (training jobs or evaluation parts) by number: a ticket asked before
  // its value arrives waits as a promise; a value that arrives first waits for its ticket.
  // The caller holds mutex_.
  template <class T>
  struct Mailbox {
    struct Arrival {
      std::optional<T> value;
      std::string failure;  // set instead of value: the owning rank's error
    };
    std::map<uint64_t, std::promise<T>> waiting;
    std::map<uint64_t, Arrival> early;

    std::future<T> expect(uint64_t key) {
      std::promise<T> promise;
      auto future = promise.get_future();
      if (auto it = early.find(key); it != early.end()) {
        settle(promise, std::move(it->second));
        early.erase(it);
      } else {
        waiting.emplace(key, std::move(promise));
      }
      return future;
    }
    void deliver(uint64_t key, Arrival arrival) {
      auto it = waiting.find(key);
      if (it == waiting.end()) {
        early.emplace(key, std::move(arrival));
        return;
      }
      settle(it->second, std::move(arrival));
      waiting.erase(it);
    }
    bool arrived(uint64_t key) const { return early.count(key) > 0; }

   private:
    static void settle(std::promise<T>& promise, Arrival arrival) {
      if (arrival.value) promise.set_value(std::move(*arrival.value));
      else promise.set_exception(std::make_exception_ptr(std::runtime_error(arrival.failure)));
    }
  };
  void communicate();
  void deliver(int from, const std::vector<char>& bytes);
  void queue(std::vector<char> bytes);
  void note_state(const char* format, uint64_t job);

  std::unique_ptr<MpiWorld> world_;
  int rank_ = 0, ranks_ = 1;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<const std::vector<char>>> outbox_;
  Mailbox<TrainOutcome> outcomes_;
  Mailbox<EvalPart> parts_;
  std::vector<bool> done_from_;  // by rank: its last message (finish) has arrived
  uint64_t published_ = 0, awaited_ = 0, next_part_ = 1;
  int64_t parts_from_others_ = 0;
  bool finishing_ = false, stop_ = false;
  std::thread thread_;
};

}  // namespace fedgrid

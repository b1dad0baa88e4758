#pragma once
// Asynchronous schedules' one primitive: jobs started on hospitals whenever the server decides,
// their results taken one at a time in simulated arrival order.
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace fedgrid {

class Hospital;

// What asynchronous jobs need of the federation, handed to them explicitly
// (Federation::job_site()) rather than read from its members.
class JobSite {
 public:
  virtual ~JobSite() = default;
  virtual std::vector<Hospital*> hospitals() = 0;
  // Whether `h` will be available again from now on (always without faults).
  virtual bool comes_back(const Hospital& h) const = 0;
  // Runs `body` as job `job` on `h`, in the calling actor on `h`'s host: tagged with the job
  // (its seed and round), once `h` is available (under faults), and under `h`'s fault guard.
  virtual void run_job(Hospital& h, uint64_t job, const std::function<void()>& body) = 0;
  virtual double now() const = 0;
  // The schedule stopped with jobs under way: their work belongs to no round that will be
  // reported.
  virtual void drop_work_under_way() = 0;
};

// Asynchronous schedules (FedAsync, FedBuff): the server starts a job on a hospital whenever it
// decides to, each job in its own actor on the hospital's host, and takes the results one at a
// time as they arrive: by the simulated instant the job ended, then by hospital id for jobs
// that end at the same instant (never by the order SimGrid happens to run them in). A job's
// training shuffles with a seed of its own (scenario seed, hospital, job number).
// The non-template core of Arrivals<R>.
class ArrivalQueue {
 public:
  explicit ArrivalQueue(JobSite& site);
  ArrivalQueue(const ArrivalQueue&) = delete;
  ArrivalQueue& operator=(const ArrivalQueue&) = delete;
  ~ArrivalQueue();  // stop()
  bool busy(const Hospital& h) const;  // a job started on it and not yet taken
  std::vector<Hospital*> idle();       // hospitals with no job, by id (under faults: that will be back)
  size_t under_way() const { return started_ - taken_; }
  // The schedule ends: jobs still under way are dropped. They run to their end (a training job
  // cannot be cut short), their results are discarded, and the run's figures stay those of the
  // last round reported.
  void stop();

 protected:
  // Starts body(job number) in an actor on `h`'s host.
  void launch(Hospital& h, std::function<void(uint64_t)> body);
  struct Taken {
    Hospital* hospital;
    uint64_t job;
  };
  // Waits for the next arrival and takes it (rethrowing a job's exception); empty when no job
  // is under way.
  std::optional<Taken> take();

 private:
  struct Arrived {
    double at;
    int hospital;
    uint64_t job;
    std::exception_ptr error;
  };
  struct Sync;  // SimGrid's mutex, condition variable and the jobs' actors (arrivals.cpp)
  JobSite& site_;
  std::unique_ptr<Sync> sync_;
  std::vector<Arrived> arrived_;
  std::map<uint64_t, Hospital*> running_;  // started and not yet taken, by job number
  uint64_t started_ = 0, taken_ = 0;
  bool stopped_ = false;
};

template <class R>
class Arrivals : public ArrivalQueue {
 public:
  using ArrivalQueue::ArrivalQueue;
  ~Arrivals() { stop(); }  // before results_ goes: dropped jobs still write theirs
  struct Arrival {
    Hospital* hospital;
    std::optional<R> result;  // empty: the job was lost (faults: a crash, the end of its availability)
  };
  // Starts `job` on `h` now (under faults: once `h` is available); its result arrives when it
  // returns, or empty when faults cut it.
  void start(Hospital& h, std::function<R()> job) {
    launch(h, [this, job = std::move(job)](uint64_t n) { results_.emplace(n, job()); });
  }
  // The next result to arrive, once it has; empty when no job is under way.
  std::optional<Arrival> next() {
    auto taken = take();
    if (!taken) return std::nullopt;
    auto it = results_.find(taken->job);
    if (it == results_.end()) return Arrival{taken->hospital, std::nullopt};
    Arrival a{taken->hospital, std::move(it->second)};
    results_.erase(it);
    return a;
  }

 private:
  std::map<uint64_t, R> results_;
};

}  // namespace fedgrid

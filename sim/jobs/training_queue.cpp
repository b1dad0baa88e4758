// Holding, grouping and launching training jobs (see training_queue.hpp).
#include "sim/jobs/training_queue.hpp"

#include <spdlog/spdlog.h>

#include <stdexcept>

#include "sim/jobs/fused/fused_training.hpp"
#include "sim/jobs/mpi/job_exchange.hpp"

namespace fedgrid {

int fuse_auto_limit(ComputeDevice device) {
  // On a GPU one fused job of up to 1,024 small models fits easily in memory (the McMahan CNN at
  // batch 32: ~15 MB a member with its activations and optimiser state).
  return device == ComputeDevice::Cuda ? 1024 : 0;
}

int fuse_limit_of(Fuse setting, ComputeDevice device) {
  switch (setting.mode) {
    case FuseMode::Off: return 0;
    case FuseMode::Auto: return fuse_auto_limit(device);
    case FuseMode::Count: break;
  }
  return setting.count;
}

namespace {

// A failed job's reason, for the ranks that wait on it (training.executor: mpi).
std::string why(const std::exception_ptr& failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception that is no std::exception";
  }
}

}  // namespace

struct TrainingQueue::Held {
  LocalWork* work;
  JobInput job;
  FusibleTerms terms;
  std::shared_ptr<const void> keep_alive;
  std::promise<TrainOutcome> promise;
  uint64_t id;
  uint64_t spread;  // Ticket::job
};

TrainingQueue::TrainingQueue(Executor& executor, BusyClock& busy, int fuse_limit, JobExchange* exchange)
    : executor_(executor), busy_(busy), limit_(fuse_limit), exchange_(exchange) {}

// A held job's inputs belong to its submitter, who waits for it before freeing them; jobs still
// held at the end were never waited for, so they are dropped untrained.
TrainingQueue::~TrainingQueue() = default;

void TrainingQueue::run_alone(LocalWork& work, const JobInput& job, std::shared_ptr<const void> keep_alive,
                              std::promise<TrainOutcome> promise, uint64_t spread) {
  auto p = std::make_shared<std::promise<TrainOutcome>>(std::move(promise));
  executor_.submit([&work, job, &busy = busy_, keep_alive, p, spread, exchange = exchange_] {
    try {
      BusyClock::Scope running(busy);
      TrainOutcome out;
      in_precision(job.precision, [&] { out = work.run(job); });
      if (spread) exchange->publish(spread, out);
      p->set_value(std::move(out));
    } catch (...) {
      if (spread) exchange->publish_failure(spread, why(std::current_exception()));
      p->set_exception(std::current_exception());
    }
  });
}

TrainingQueue::Ticket TrainingQueue::submit(LocalWork& work, const JobInput& job,
                                            std::shared_ptr<const void> keep_alive) {
  std::promise<TrainOutcome> promise;
  Ticket ticket{promise.get_future(), 0, 0};
  const std::optional<FusibleTerms> terms = limit_ > 1 || exchange_ ? work.fusible() : std::nullopt;
  if (exchange_ && terms) {  // plain training, nothing but its outcome: any rank may run it
    ticket.job = next_spread_++;
    if (!exchange_->owns(ticket.job)) {
      ticket.result = exchange_->expect(ticket.job);
      ++jobs_on_other_ranks_;
      return ticket;
    }
  }
  const bool arch_fuses = limit_ > 1 && terms && fusible_arch(job.model->spec);
  if (limit_ > 1 && terms && !arch_fuses && said_unfused_.insert(job.model->spec.arch).second)
    spdlog::debug("training.fuse: model arch '{}' has no fused form; its jobs train one by one",
                  job.model->spec.arch);
  if (!arch_fuses || job.precision != Precision::Fp32) {
    run_alone(work, job, std::move(keep_alive), std::move(promise), ticket.job);
    return ticket;
  }
  ticket.id = next_id_++;
  held_[fuse_key(job, *terms)].push_back(std::make_shared<Held>(
      Held{&work, job, *terms, std::move(keep_alive), std::move(promise), ticket.id, ticket.job}));
  held_ids_.insert(ticket.id);
  return ticket;
}

void TrainingQueue::launch(const Ticket& t) {
  if (t.job != 0) exchange_->awaiting(t.job);
  if (t.id != 0 && held_ids_.count(t.id)) launch_all();
}

void TrainingQueue::launch_all() {
  auto held = std::move(held_);
  held_.clear(), held_ids_.clear();
  for (auto& [key, jobs] : held) {
    for (size_t begin = 0; begin < jobs.size(); begin += size_t(limit_)) {
      const size_t end = std::min(jobs.size(), begin + size_t(limit_));
      if (end - begin == 1) {  // alone, as an unfused run trains it
        Held& h = *jobs[begin];
        run_alone(*h.work, h.job, std::move(h.keep_alive), std::move(h.promise), h.spread);
        continue;
      }
      std::vector<std::shared_ptr<Held>> group(jobs.begin() + long(begin), jobs.begin() + long(end));
      ++fused_jobs_, fused_members_ += int64_t(group.size());
      executor_.submit([group, &busy = busy_, exchange = exchange_] {
        try {
          BusyClock::Scope running(busy);
          std::vector<FusedJob> fused;
          for (const auto& h : group) fused.push_back({h->job, h->terms});
          std::vector<TrainOutcome> out = train_fused(fused);
          for (size_t i = 0; i < group.size(); ++i) {
            if (group[i]->spread) exchange->publish(group[i]->spread, out[i]);
            group[i]->promise.set_value(std::move(out[i]));
          }
        } catch (...) {
          for (const auto& h : group) try {
              if (h->spread) exchange->publish_failure(h->spread, why(std::current_exception()));
              h->promise.set_exception(std::current_exception());
            } catch (const std::future_error&) {  // already set
            }
        }
      });
    }
  }
}

}  // namespace fedgrid

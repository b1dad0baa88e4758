#include "sim/engine/arrivals.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <tuple>

#include "sim/engine/node.hpp"

namespace fedgrid {
namespace sg4 = simgrid::s4u;

struct ArrivalQueue::Sync {
  sg4::MutexPtr mutex = sg4::Mutex::create();
  sg4::ConditionVariablePtr arrived = sg4::ConditionVariable::create();
  std::vector<sg4::ActorPtr> actors;
};

ArrivalQueue::ArrivalQueue(JobSite& site) : site_(site), sync_(std::make_unique<Sync>()) {}

ArrivalQueue::~ArrivalQueue() { stop(); }

bool ArrivalQueue::busy(const Hospital& h) const {
  for (const auto& [job, at] : running_)
    if (at == &h) return true;
  return false;
}

std::vector<Hospital*> ArrivalQueue::idle() {
  std::vector<Hospital*> out;
  for (Hospital* h : site_.hospitals())
    if (!busy(*h) && site_.comes_back(*h)) out.push_back(h);
  return out;
}

void ArrivalQueue::launch(Hospital& h, std::function<void(uint64_t)> body) {
  if (stopped_) throw std::logic_error("ArrivalQueue: a job started after stop()");
  const uint64_t job = started_++;
  running_[job] = &h;
  sync_->actors.push_back(sg4::Actor::create(h.name() + "/job" + std::to_string(job), h.host(),
                                             [this, &h, job, body = std::move(body)] {
    std::exception_ptr error;
    try {
      site_.run_job(h, job, [&] { body(job); });
    } catch (...) {
      error = std::current_exception();
    }
    // SimGrid runs one actor at a time, so this needs no lock; and no simcall comes between the
    // job's last activity and this line, so every job whose last activity ends at one instant
    // records its arrival in the scheduling step that instant wakes it in (take() relies on it).
    arrived_.push_back({site_.now(), h.id(), job, error});
    sync_->arrived->notify_all();
  }));
}

std::optional<ArrivalQueue::Taken> ArrivalQueue::take() {
  if (running_.empty()) return std::nullopt;
  {
    std::unique_lock lock(*sync_->mutex);
    sync_->arrived->wait(lock, [&] { return !arrived_.empty(); });
  }
  // Other jobs may end at this same instant and not have run yet: a yield returns once every
  // actor ready at this instant has run, so after yields that bring nothing new, every arrival
  // of this instant is in, and the choice below follows time and hospital id alone.
  size_t seen = 0;
  do {
    seen = arrived_.size();
    sg4::this_actor::yield();
  } while (arrived_.size() != seen);
  auto first = std::min_element(arrived_.begin(), arrived_.end(), [](const Arrived& a, const Arrived& b) {
    return std::tie(a.at, a.hospital, a.job) < std::tie(b.at, b.hospital, b.job);
  });
  const Arrived a = *first;
  arrived_.erase(first);
  Hospital* h = running_.at(a.job);
  running_.erase(a.job);
  ++taken_;
  if (a.error) {
    stop();
    std::rethrow_exception(a.error);
  }
  return Taken{h, a.job};
}

void ArrivalQueue::stop() {
  if (stopped_) return;
  stopped_ = true;
  // Work under way belongs to no round that will be reported: the ledger drops it.
  if (!running_.empty()) site_.drop_work_under_way();
  for (auto& actor : sync_->actors) actor->join();
  sync_->actors.clear();
}

}  // namespace fedgrid

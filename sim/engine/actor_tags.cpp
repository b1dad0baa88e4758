#include "sim/engine/actor_tags.hpp"

#include <simgrid/s4u.hpp>

namespace fedgrid {
namespace sg4 = simgrid::s4u;

namespace {
long self() { return long(sg4::this_actor::get_pid()); }
}  // namespace

void ActorTags::enter_round(int round) { rounds_[self()] = round; }

void ActorTags::leave_round() { rounds_.erase(self()); }

int ActorTags::round() const {
  if (rounds_.empty() || !sg4::Actor::self()) return run_round_;
  auto it = rounds_.find(self());
  return it == rounds_.end() ? run_round_ : it->second;
}

void ActorTags::start_job(uint64_t job) { jobs_[self()] = job; }

void ActorTags::end_job() { jobs_.erase(self()); }

std::optional<uint64_t> ActorTags::job() const {
  if (jobs_.empty() || !sg4::Actor::self()) return std::nullopt;
  auto it = jobs_.find(self());
  if (it == jobs_.end()) return std::nullopt;
  return it->second;
}

}  // namespace fedgrid

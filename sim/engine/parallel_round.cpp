#include "sim/engine/parallel_round.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <exception>

#include "sim/engine/actor_tags.hpp"
#include "sim/engine/cohorts.hpp"
#include "sim/engine/fault_guard.hpp"
#include "sim/engine/node.hpp"
#include "sim/engine/round_ledger.hpp"

namespace fedgrid {
namespace sg4 = simgrid::s4u;

namespace {

// One actor per acting hospital (indices `which` of `hs`), on its host, running body(i); an
// exception is kept for the caller.
std::vector<sg4::ActorPtr> spawn_on_hospitals(const std::vector<Hospital*>& hs, const std::vector<size_t>& which,
                                              int round, std::vector<std::exception_ptr>& errors,
                                              const std::function<void(size_t)>& body) {
  std::vector<sg4::ActorPtr> actors;
  for (size_t i : which)
    // body by value: the caller's std::function temporary may die before the actors run.
    actors.push_back(sg4::Actor::create(hs[i]->name() + "/r" + std::to_string(round), hs[i]->host(),
                                        [&errors, body, i] {
      try {
        body(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }));
  return actors;
}

}  // namespace

ParallelRound::ParallelRound(Cohorts& cohorts, FaultGuards& guards, RoundLedger& ledger, const ActorTags& tags)
    : cohorts_(cohorts), guards_(guards), ledger_(ledger), tags_(tags) {}

void ParallelRound::run(const std::vector<Hospital*>& hs, double round_started, const Body& body, const FanOut& copy,
                        const Body& drop) {
  const int round = tags_.run_round();
  std::vector<std::vector<size_t>> members;
  const auto which = cohorts_.acting(hs, members);
  std::vector<std::exception_ptr> errors(hs.size());
  std::vector<Guard> guards(hs.size());
  auto w = wanted_.find(round);
  const size_t wanted = w == wanted_.end() ? hs.size() : w->second;
  size_t reported = 0;
  // A failing hospital wakes any other that waits on it (collect), so the join below returns.
  auto guarded = [&](size_t i) {
    try {
      if (!guards_.run(*hs[i], guards[i], tags_.round(), round_started, [&] { body(i); })) return;
      if (++reported == wanted && wanted < hs.size()) cut_the_rest(guards, reported);
    } catch (...) {
      ledger_.stop();
      throw;
    }
  };
  auto actors = spawn_on_hospitals(hs, which, round, errors, guarded);
  for (auto& a : actors) a->join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  if (wanted < hs.size()) drop_late(hs, guards, wanted, drop);
  for (size_t i : which) fan_out(hs, i, members[i], copy);
}

void ParallelRound::cut_the_rest(std::vector<Guard>& guards, const size_t& reported) {
  // Every hospital that reports at this same instant reports before the cut: a yield returns
  // once every actor ready now has run (the tie is then decided by id, in drop_late).
  size_t seen = 0;
  do {
    seen = reported;
    sg4::this_actor::yield();
  } while (reported != seen);
  for (auto& g : guards)
    if (g.finished_at < 0 && g.lost == Loss::None) {
      g.lost = Loss::Late;
      if (g.current) g.left_when_cancelled = g.current->get_remaining(), g.current->cancel();
    }
}

void ParallelRound::drop_late(const std::vector<Hospital*>& hs, std::vector<Guard>& guards, size_t wanted,
                              const Body& drop) {
  std::vector<size_t> in;
  for (size_t i = 0; i < hs.size(); ++i)
    if (guards[i].finished_at >= 0 && guards[i].lost == Loss::None) in.push_back(i);
  std::sort(in.begin(), in.end(), [&](size_t a, size_t b) {
    return std::make_pair(guards[a].finished_at, hs[a]->id()) < std::make_pair(guards[b].finished_at, hs[b]->id());
  });
  for (size_t k = wanted; k < in.size(); ++k) {
    auto& g = guards[in[k]];
    g.lost = Loss::Late;
    ledger_.note_loss(tags_.round(), hs[in[k]]->id(), status_name(Loss::Late), g.bytes, g.seconds);
    drop(in[k]);
  }
}

void ParallelRound::fan_out(const std::vector<Hospital*>& hs, size_t rep, const std::vector<size_t>& members,
                            const FanOut& copy) {
  const size_t rep_id = size_t(hs[rep]->id());
  cohorts_.release(int(rep_id));
  for (size_t m : members) {
    if (m == rep) continue;
    copy(rep, m);
    auto& stats = ledger_.round(tags_.round()).stats;
    stats[size_t(hs[m]->id())] = stats[rep_id];
  }
}

}  // namespace fedgrid

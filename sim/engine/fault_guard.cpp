#include "sim/engine/fault_guard.hpp"

#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>

#include <algorithm>

#include "sim/engine/energy_meter.hpp"
#include "sim/engine/node.hpp"
#include "sim/engine/peer_mail.hpp"
#include "sim/engine/round_ledger.hpp"

namespace fedgrid {
namespace sg4 = simgrid::s4u;

namespace {

std::vector<std::string> names_of(const std::vector<Hospital*>& hospitals) {
  std::vector<std::string> names;
  for (const auto* h : hospitals) names.push_back(h->name());
  return names;
}

}  // namespace

FaultGuards::FaultGuards(const Scenario& scenario, const std::vector<Hospital*>& hospitals, RoundLedger& ledger,
                         PeerMail& mail)
    : scenario_(scenario),
      hospitals_(hospitals),
      ledger_(ledger),
      mail_(mail),
      plan_(std::make_unique<FaultPlan>(scenario, names_of(hospitals))) {}

FaultGuards::~FaultGuards() = default;

void FaultGuards::start_daemons(sg4::Host* server, EnergyMeter& energy) {
  start_link_traces(server);
  // A crashed host draws its wattage_off while it is down.
  for (const auto* h : hospitals_)
    if (plan_->may_crash(h->id()))
      sg4::Actor::create(h->name() + "/downtime", server, [this, &energy, id = h->id(), host = h->host()] {
        for (double t = 0;;) {
          const auto down = plan_->next_downtime(id, t);
          if (down.from == FaultPlan::kNever) return;
          sg4::this_actor::sleep_until(down.from);
          energy.set_on(host, false);
          if (down.until == FaultPlan::kNever) return;
          sg4::this_actor::sleep_until(down.until);
          energy.set_on(host, true);
          t = down.until;
        }
      })->daemonize();
}

bool FaultGuards::run(Hospital& h, Guard& guard, int round, double round_started, const std::function<void()>& body,
                      bool counts_update) {
  if (!plan_->any()) {
    body();
    return true;
  }
  auto lose = [&] {
    if (counts_update) {
      ledger_.note_loss(round, h.id(), status_name(guard.lost), guard.bytes, guard.seconds);
      mail_.lost(h.id(), round);  // whoever waits for its posts goes on without them
    } else {
      ledger_.waste(round, guard.bytes, guard.seconds);
    }
    return false;
  };
  const double now = sg4::Engine::get_clock();
  if ((guard.lost = plan_->unavailable(h.id(), round, now)) != Loss::None) return lose();
  const auto cut = plan_->next_cut(h.id(), now);
  guard.cut_at = cut.at, guard.cut_why = cut.why;
  if (const double d = scenario_.faults.deadline_s; d > 0 && round_started + d < guard.cut_at)
    guard.cut_at = round_started + d, guard.cut_why = Loss::Late;
  const long pid = long(sg4::this_actor::get_pid());
  if (!guards_.emplace(pid, &guard).second)
    throw std::logic_error("Federation: a hospital's work started inside another's (visit inside parallel or visit)");
  try {
    body();
  } catch (const HospitalLost&) {
  } catch (...) {
    guards_.erase(pid);
    throw;
  }
  guards_.erase(pid);
  if (guard.lost != Loss::None) return lose();
  guard.finished_at = sg4::Engine::get_clock();
  return true;
}

Guard* FaultGuards::here() {
  if (guards_.empty() || !sg4::Actor::self()) return nullptr;
  auto it = guards_.find(long(sg4::this_actor::get_pid()));
  return it == guards_.end() ? nullptr : it->second;
}

void FaultGuards::check_cut(Guard& guard) {
  if (guard.lost == Loss::None && sg4::Engine::get_clock() >= guard.cut_at) guard.lost = guard.cut_why;
  if (guard.lost != Loss::None) throw HospitalLost{};
}

std::optional<double> FaultGuards::wait_cut(Guard& guard, sg4::Activity& a) {
  // wait_any_for leaves the activity running at its timeout (a plain wait_for would end it),
  // so what it has left can still be read before it is cancelled.
  guard.current = &a;
  try {
    const double timeout =
        guard.cut_at == FaultPlan::kNever ? -1.0 : std::max(0.0, guard.cut_at - sg4::Engine::get_clock());
    sg4::Activity::wait_any_for({sg4::ActivityPtr(&a)}, timeout);
  } catch (const simgrid::Exception&) {  // cancelled by the round: late (ParallelRound's cut)
  }
  guard.current = nullptr;
  if (a.get_state() == sg4::Activity::State::FINISHED) return std::nullopt;
  double left = guard.left_when_cancelled;
  if (a.get_state() != sg4::Activity::State::CANCELED) {
    left = a.get_remaining();
    a.cancel();
  }
  if (guard.lost == Loss::None) guard.lost = guard.cut_why;
  return std::max(0.0, left);
}

// faults.link_trace on the hospital's access links (<name>_up, <name>_down, as the star and
// the example platforms name them): a daemon actor sets each step's bandwidth (the link's own
// times the factor) and latency at its instant. SimGrid's profiles would do the same but can
// only be set before a link is sealed, which an XML platform's are once loaded.
void FaultGuards::start_link_traces(sg4::Host* server) {
  for (const auto* h : hospitals_) {
    const auto& steps = plan_->link_steps(h->id());
    if (steps.empty()) continue;
    std::vector<sg4::Link*> links;
    for (const char* side : {"_up", "_down"}) {
      sg4::Link* link = sg4::Link::by_name_or_null(h->name() + side);
      if (!link)
        throw scenario_.error_at("faults.link_trace", "hospital " + h->name() + " has no access link named " +
                                                          h->name() + side +
                                                          " (an XML platform must name its links so)");
      links.push_back(link);
    }
    std::vector<double> peak;
    for (auto* l : links) peak.push_back(l->get_bandwidth());
    sg4::Actor::create(h->name() + "/link-trace", server, [steps, links, peak] {
      for (const auto& s : steps) {
        sg4::this_actor::sleep_until(s.time_s);
        for (size_t i = 0; i < links.size(); ++i) {
          links[i]->set_bandwidth(peak[i] * s.bandwidth_factor);
          if (s.latency_s) links[i]->set_latency(*s.latency_s);
        }
      }
    })->daemonize();
  }
}

}  // namespace fedgrid

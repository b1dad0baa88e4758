#pragma once
// Faults acting on hospitals' work (faults.*): each hospital's work in a round runs under a
// guard that knows the instant it will be cut (a crash, the end of its availability, the
// round's deadline) and why; the activity it waits on then is cancelled, what it spent counts
// as lost, and whoever waits for its peer posts is told. Also the daemons that play the link
// traces and switch a crashed host's energy meter off while it is down.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "sim/engine/faults.hpp"

namespace simgrid::s4u {
class Activity;
class Host;
}  // namespace simgrid::s4u

namespace fedgrid {

class Hospital;
class RoundLedger;
class PeerMail;
class EnergyMeter;

// Thrown inside a guarded hospital's work once faults cut it; FaultGuards::run catches it.
struct HospitalLost {};

// One hospital's work under faults: the instant it is cut and why, how it ended, what it
// spent, and the activity it waits on (so that a round that has what it needs can cut it).
struct Guard {
  double cut_at = FaultPlan::kNever;
  Loss cut_why = Loss::None;
  Loss lost = Loss::None;
  simgrid::s4u::Activity* current = nullptr;
  double left_when_cancelled = 0;  // what `current` had left when the round cut it
  int64_t bytes = 0;
  double seconds = 0, finished_at = -1;
};

class FaultGuards {
 public:
  FaultGuards(const Scenario& scenario, const std::vector<Hospital*>& hospitals, RoundLedger& ledger, PeerMail& mail);
  ~FaultGuards();
  FaultPlan& plan() { return *plan_; }
  bool any() const { return plan_->any(); }
  // Starts the daemons on `server`: link traces (faults.link_trace) and the downtime of hosts
  // that may crash (their meter draws wattage_off while down).
  void start_daemons(simgrid::s4u::Host* server, EnergyMeter& energy);

  // Runs body() as `h`'s work of `round` under `guard`; false when it was lost, which is then
  // recorded (status, loss counters, its peer posts). Without faults, just body(). The round's
  // deadline (faults.deadline_s) counts from `round_started`. `counts_update`: false for a
  // courier, whose loss wastes bytes but loses no update of its own.
  bool run(Hospital& h, Guard& guard, int round, double round_started, const std::function<void()>& body,
           bool counts_update = true);
  Guard* here();  // the calling actor's guard, or null
  // Throws HospitalLost when the guarded work is already cut.
  void check_cut(Guard& guard);
  // Waits for `a` until the guard's cut; the amount it had left when cut, or empty once done.
  std::optional<double> wait_cut(Guard& guard, simgrid::s4u::Activity& a);

 private:
  void start_link_traces(simgrid::s4u::Host* server);
  const Scenario& scenario_;
  std::vector<Hospital*> hospitals_;
  RoundLedger& ledger_;
  PeerMail& mail_;
  std::unique_ptr<FaultPlan> plan_;
  std::map<long, Guard*> guards_;  // guarded actors, by pid
};

}  // namespace fedgrid

#pragma once
// Faults in the simulated world (scenario section faults.*; docs/guide/faults.md): when a hospital
// is offline, when its host crashes and comes back, how its links degrade, and the deadline of
// a parallel round. Every answer is a pure function of the scenario, its trace files and its
// seed, so a fault scenario gives the same bytes run to run, with any worker count, and a
// resumed run meets the same faults after its checkpoint.
//
// Decisions:
// - offline_probability is drawn per (hospital, round): the hospital misses the whole round
//   (it is not contacted, nothing is spent). Selection still draws from every hospital, so the
//   same hospitals are asked with and without faults; the offline ones are reported as such.
// - an availability trace lists online intervals [from, until); a listed hospital is offline
//   outside them, and a job it runs is cut when its interval ends (status offline).
// - a crash takes the host down from crash_at to recover_at; the job running there is cut at
//   crash_at (status crashed) and the host counts as offline until it is back. With a rate, the
//   gaps between crashes are exponential, drawn per (hospital, crash number), each crash
//   followed by faults.recovery_s of downtime (0: back at once, only the job is lost).
//   fedgrid cuts the hospital's activities itself rather than switch the SimGrid host off:
//   Host::turn_off kills every actor on the host at once, the one waiting for the real
//   training job included (Federation's guards, federation.cpp). The energy meter takes the
//   host as off while it is down (its wattage_off).
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/input_error.hpp"
#include "sim/scenario/scenario.hpp"

namespace fedgrid {

// Why a hospital's update did not reach its round (hospitals.csv's status).
enum class Loss { None, Offline, Crashed, Late };
const char* status_name(Loss loss);  // "", "offline", "crashed", "late"

class FaultPlan {
 public:
  static constexpr double kNever = std::numeric_limits<double>::infinity();
  // Reads the trace files, refusing bad rows with file, line and column (InputError).
  FaultPlan(const Scenario& scenario, const std::vector<std::string>& hospital_names);

  bool any() const { return scenario_.faults.any(); }
  // Why hospital h cannot start work at time t of round `round`: Offline (drawn offline this
  // round, outside its trace's intervals, or its host down after a crash), else None.
  Loss unavailable(int h, int round, double t);
  // The first instant after t at which work hospital h runs from t on is cut, and why (kNever
  // and None when nothing cuts it).
  struct Cut {
    double at = kNever;
    Loss why = Loss::None;
  };
  Cut next_cut(int h, double t);
  // The first instant >= t at which h is neither down nor outside its trace (kNever: never).
  double available_from(int h, double t);
  // The first downtime of h's host (a crash, until it is back) that begins at or after t.
  struct Downtime {
    double from = kNever, until = kNever;
  };
  Downtime next_downtime(int h, double t);
  bool may_crash(int h) const { return scenario_.faults.crash_rate_per_hour > 0 || !down_[size_t(h)].empty(); }

  // faults.link_trace: from time_s on, the hospital's access links run at bandwidth_factor x
  // their bandwidth, and at latency_s when given.
  struct LinkStep {
    double time_s = 0, bandwidth_factor = 1;
    std::optional<double> latency_s;
  };
  const std::vector<LinkStep>& link_steps(int h) const { return links_[size_t(h)]; }

 private:
  struct Interval {
    double from, until;
  };
  const std::vector<Interval>& downtime(int h, double until);  // crashes up to `until`, generated as needed
  bool in_trace(int h, double t, double* until) const;       // online by the availability trace

  const Scenario& scenario_;
  std::vector<std::optional<std::vector<Interval>>> online_;  // by hospital; empty: always online
  std::vector<std::vector<Interval>> down_;                   // crashes, sorted by start
  std::vector<double> generated_until_;                       // rate crashes drawn up to this instant
  std::vector<uint64_t> crashes_drawn_;
  std::vector<std::vector<LinkStep>> links_;
};

}  // namespace fedgrid

#pragma once
// faults.*: faults in the simulated world (sim/engine/faults.hpp, docs/guide/faults.md): all
// off by default.
#include <string>

namespace fedgrid {

struct FaultsSection {
  double offline_probability = 0;  // each hospital offline for a whole round, drawn per (hospital, round)
  std::string availability_trace;  // CSV hospital,online_from_s,online_until_s (resolved path or empty)
  std::string crash_trace;         // CSV hospital,crash_at_s[,recover_at_s]
  double crash_rate_per_hour = 0;  // crashes per hospital per simulated hour (exponential gaps)
  double recovery_s = 0;           // downtime after a crash drawn from the rate
  std::string link_trace;          // CSV hospital,time_s,bandwidth_factor[,latency_s]
  double deadline_s = 0;           // parallel rounds: updates not in by then are late (0: none)
  double over_selection = 0;       // select (1 + this) x the wanted hospitals, keep the first to report
  bool any() const {
    return offline_probability > 0 || !availability_trace.empty() || !crash_trace.empty() ||
           crash_rate_per_hour > 0 || !link_trace.empty() || deadline_s > 0 || over_selection > 0;
  }
};

}  // namespace fedgrid

#pragma once
// `fedgrid calibrate` under a stated load: several processes step at once, each optionally in
// its own cgroup limited to a share of one CPU, so that a profile can predict a machine as it
// will run (a hospital's usual load, a VM's CPU quota, hosts sharing a machine) rather than
// idle. The processes are forked before any torch call and measure in common windows of the
// monotonic clock (sim/jobs/calibration/step_timer.hpp's StepWindow), so each meets the others' load
// throughout.
#include <cstdint>
#include <string>
#include <vector>

#include "models/model_spec.hpp"
#include "sim/jobs/compute.hpp"
#include "sim/jobs/calibration/step_timer.hpp"

namespace fedgrid {

struct LoadConditions {
  int copies = 1;              // processes per share (or in all, without shares)
  std::vector<double> shares;  // one group per process at each share; empty: no quota
  int64_t period_us = 10000;   // the CFS period of the quotas
  double seconds = 10;         // training window per model and batch size
};

// What the profile's header records: how many processes, which quotas, which statistic.
std::string describe(const LoadConditions& load);

struct Measurement {
  models::ModelSpec spec;
  int64_t batch = 0;
};

// timings[s][m]: measurement m at share s (one slot without shares), the mean over the copies at
// that share. Throws CgroupsUnavailable when shares are asked for and no cgroup cpu controller
// is writable, std::runtime_error when a copy fails (every copy is stopped first).
std::vector<std::vector<StepTiming>> time_under_load(const std::vector<Measurement>& what, int threads,
                                                     const OptimizerConfig& optimizer, const LoadConditions& load);

}  // namespace fedgrid

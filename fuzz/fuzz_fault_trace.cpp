// Fault traces (faults.availability_trace, crash_trace, link_trace) -> FaultPlan, as a run reads
// them before the first simulated event. The first byte picks the trace; bad input must end as
// InputError (file, line and column; exit code 2), nothing else. Then every query a run makes
// is asked of the plan, so that what was read is also used.
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/fuzz_files.hpp"
#include "sim/core/input_error.hpp"
#include "sim/engine/faults.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string file = fedgrid::fuzz::write_scratch("trace.csv", data + 1, size - 1);
  fedgrid::Scenario s;
  s.seed = 1;
  switch (data[0] % 3) {
    case 0: s.faults.availability_trace = file; break;
    case 1: s.faults.crash_trace = file, s.faults.crash_rate_per_hour = 60, s.faults.recovery_s = 5; break;
    default: s.faults.link_trace = file; break;
  }
  const std::vector<std::string> names{"weak-1", "weak-2", "strong-1"};
  try {
    fedgrid::FaultPlan plan(s, names);
    for (int h = 0; h < 3; ++h)
      for (double t : {0.0, 1.5, 100.0, 1e6}) {
        plan.unavailable(h, 1, t);
        plan.next_cut(h, t);
        plan.available_from(h, t);
        plan.link_steps(h);
      }
  } catch (const fedgrid::InputError&) {
  }
  return 0;
}

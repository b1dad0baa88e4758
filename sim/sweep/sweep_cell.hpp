#pragma once
// One cell of a sweep as its own process: `fedgrid run BASE --set ... --out SWEEP/CELL`
// (SimGrid allows one engine per process). Its output lands in the cell's folder, with the
// run's stdout and stderr in run.log and the outcome in cell.json, which is what lets a
// re-run of the sweep skip the cells that already finished.
#include <sys/types.h>

#include <optional>
#include <string>

#include "sim/sweep/sweep_plan.hpp"

namespace fedgrid {

struct CellOutcome {
  size_t cell = 0;
  bool ok = false;
  std::string error;    // why it failed: the run's error lines, or how it ended
  std::string summary;  // the run's summary.json text when ok
  bool reused = false;  // finished in an earlier invocation of the sweep
};

// Starts the cell's run (`executable` is the fedgrid binary) and returns its process id.
pid_t start_cell(const SweepPlan& plan, const SweepCell& cell, const std::string& executable);

// The outcome of a cell's process that ended with `wait_status` (from waitpid); records it
// in the cell's cell.json.
CellOutcome finish_cell(const SweepPlan& plan, const SweepCell& cell, int wait_status);

// The outcome recorded by an earlier invocation, if this very cell (same base and
// overrides) finished there; failed cells are run again.
std::optional<CellOutcome> earlier_outcome(const SweepPlan& plan, const SweepCell& cell);

// Outcomes travel between MPI ranks as JSON text.
std::string to_json(const CellOutcome& o);
CellOutcome outcome_from_json(const std::string& text);

}  // namespace fedgrid

#pragma once
// One cell of a sweep as its own process: `fedgrid run BASE --set ... --out SWEEP/CELL`
// (SimGrid allows one engine per process). Its output lands in the cell's folder, with the
// run's stdout and stderr in run.log and the outcome in cell.json, which is what lets a
// re-run of the sweep skip the cells that already finished.
#include <memory>
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

// A cell's run as a child process (Boost.Process). Destroyed while it runs, it kills it.
class CellProcess {
 public:
  CellProcess(CellProcess&&) noexcept;
  CellProcess& operator=(CellProcess&&) noexcept;
  ~CellProcess();
  // Once the process ended: its wait status (as waitpid gives it); none while it runs.
  std::optional<int> poll();

 private:
  struct Child;
  explicit CellProcess(std::unique_ptr<Child> child);
  std::unique_ptr<Child> child_;
  friend CellProcess start_cell(const SweepPlan&, const SweepCell&, const std::string&);
};

// Starts the cell's run (`executable` is the fedgrid binary), its stdout and stderr going to
// the cell's run.log.
CellProcess start_cell(const SweepPlan& plan, const SweepCell& cell, const std::string& executable);

// The outcome of a cell's process that ended with `wait_status` (from CellProcess::poll);
// records it in the cell's cell.json.
CellOutcome finish_cell(const SweepPlan& plan, const SweepCell& cell, int wait_status);

// The outcome recorded by an earlier invocation, if this very cell (same base and
// overrides) finished there: ok, or failed unless `retry_failed` (a cell is deterministic, so
// it would fail again unless its inputs were fixed in the meantime). An interrupted cell
// recorded nothing and runs again.
std::optional<CellOutcome> earlier_outcome(const SweepPlan& plan, const SweepCell& cell, bool retry_failed);

// Outcomes travel between MPI ranks as JSON text.
std::string to_json(const CellOutcome& o);
CellOutcome outcome_from_json(const std::string& text);

}  // namespace fedgrid

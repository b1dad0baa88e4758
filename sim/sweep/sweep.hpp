#pragma once
// `fedgrid sweep SWEEP.yaml`: runs every cell of a sweep, `jobs` at a time on each rank,
// skips the cells an earlier invocation finished, and (on rank 0) merges all outcomes into
// sweep.csv and sweep.json. A failed cell is recorded with its error; the others go on.
#include <functional>
#include <optional>
#include <string>

#include "sim/sweep/sweep_plan.hpp"
#include "sim/sweep/sweep_ranks.hpp"

namespace fedgrid {

struct SweepOptions {
  int jobs = 1;             // cells run at once on each rank
  std::string executable;   // the fedgrid binary that runs a cell
  std::function<void(const std::string&)> log = [](const std::string&) {};  // a line per finished cell
};

struct SweepReport {
  size_t cells = 0, ran = 0, reused = 0, failed = 0;  // rank 0's view; zeros on other ranks
};

SweepReport run_sweep(const SweepPlan& plan, const SweepOptions& options, SweepRanks& ranks);

// The `sweep` command on one rank: loads the sweep file, runs it, prints the tally (rank 0).
// Exit code: 0 every cell ok, 1 a cell failed (or an internal failure), 2 bad sweep file.
int sweep_command(const std::string& file, const std::optional<std::string>& out, int jobs,
                  const std::string& fedgrid_executable, SweepRanks& ranks);

}  // namespace fedgrid

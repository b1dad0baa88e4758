#pragma once
// `fedgrid sweep SWEEP.yaml`: runs every cell of a sweep, `jobs` at a time on each rank,
// skips the cells an earlier invocation finished (failed ones too, unless retry_failed), and (on rank 0) merges all outcomes into
// sweep.csv and sweep.json. A failed cell is recorded with its error; the others go on.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/sweep/sweep_plan.hpp"
#include "sim/sweep/sweep_ranks.hpp"

namespace fedgrid {

struct SweepOptions {
  int jobs = 1;             // cells run at once on each rank
  bool retry_failed = false;  // run again the cells an earlier invocation recorded as failed
  std::string executable;   // the fedgrid binary that runs a cell
  std::function<void(const std::string&)> log = [](const std::string&) {};  // a line per finished cell
};

struct SweepReport {
  size_t cells = 0, ran = 0, reused = 0, failed = 0;  // rank 0's view; zeros on other ranks
  size_t failed_earlier = 0;  // of `reused` and `failed`: failures kept from an earlier invocation
};

SweepReport run_sweep(const SweepPlan& plan, const SweepOptions& options, SweepRanks& ranks);

// What the `sweep` command line asks besides the sweep file.
struct SweepRequest {
  std::optional<std::string> out;      // --out: replaces the file's output folder
  int jobs = 1;                        // --jobs
  std::vector<std::string> overrides;  // --set, for every cell (load_sweep says which keys may)
  bool retry_failed = false;           // --retry-failed
};

// The `sweep` command on one rank: loads the sweep file, runs it, prints the tally (rank 0).
// Exit code: 0 every cell ok, 1 a cell failed (or an internal failure), 2 bad sweep file.
int sweep_command(const std::string& file, const SweepRequest& request, const std::string& fedgrid_executable,
                  SweepRanks& ranks);

}  // namespace fedgrid

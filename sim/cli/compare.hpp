#pragma once
// `fedgrid compare RUN_DIR...`: the runs' summary.json side by side, one column per run.
#include <string>
#include <vector>

namespace fedgrid {

// The table as text; throws InputError naming a run directory whose summary.json is missing
// or unreadable.
std::string compare_runs(const std::vector<std::string>& run_dirs);

}  // namespace fedgrid

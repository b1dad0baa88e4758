#pragma once
// `fedgrid compare RUN_DIR...`: the runs' summary.json side by side, one column per run.
#include <string>
#include <vector>

namespace fedgrid {

// The table as text; throws InputError naming a run directory whose summary.json is missing
// or unreadable.
std::string compare_runs(const std::vector<std::string>& run_dirs);

// The summary.json keys its rows show, in their order: run facts and metrics' summary entries
// (tests check each is one summary.json writes).
std::vector<std::string> compared_keys();

}  // namespace fedgrid

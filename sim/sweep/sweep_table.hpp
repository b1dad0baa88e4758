#pragma once
// The merged outputs of a sweep: sweep.csv (a row per cell: its axis values, seed, status,
// error, folder and summary figures) and sweep.json (the axes, for analysis/).
#include <string>
#include <vector>

#include "sim/sweep/sweep_cell.hpp"
#include "sim/sweep/sweep_plan.hpp"

namespace fedgrid {

// The table as CSV text; `outcomes` in any order, one per cell.
std::string sweep_csv(const SweepPlan& plan, const std::vector<CellOutcome>& outcomes);

// The summary.json keys sweep.csv reads: its figure columns, in order, then final_tier_accuracy
// (a column per tier). Tests check each is one summary.json writes.
std::vector<std::string> sweep_figures();

// Writes sweep.csv and sweep.json into plan.out.
void write_sweep_outputs(const SweepPlan& plan, const std::vector<CellOutcome>& outcomes);

}  // namespace fedgrid

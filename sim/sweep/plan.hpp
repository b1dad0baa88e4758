#pragma once
// `fedgrid plan SCENARIO --vary KEY=LO..HI --target 'FIGURE <= X'`: the largest (or smallest) value
// of one scenario key for which a target on the run's figures holds (plan_search.hpp), each point
// a `fedgrid run` of the scenario with KEY set, as a sweep runs its cells (sweep_cell.hpp), `jobs`
// at a time. Writes DIR/plan.csv (every point: its value, figure, verdict and, where the scenario
// sets output.critical_path, its rounds' mean critical-path split and the largest phase) and
// DIR/plan.json (the answer, the bracket, the direction, the runs, monotonicity).
//
// With `against` (another scenario) and a target 'FIGURE <= against' (or >=), each point runs
// both scenarios with the same overrides and compares their figures: the break-even value of
// the key, where one design stops beating the other (FedSeq's relay against FedAvg over the
// hospitals' latency). plan.csv then also lists the other's figure.
#include <optional>
#include <string>
#include <vector>

namespace fedgrid {

struct PlanRequest {
  std::string scenario;
  std::string vary;    // KEY=LO..HI
  std::string target;  // FIGURE <= X | FIGURE >= X
  std::vector<std::string> overrides;  // --set, every point
  std::optional<std::string> out;      // default results/plans/<scenario name>
  std::optional<std::string> against;  // the scenario a target 'FIGURE <= against' compares with
  int jobs = 1;
  double tolerance = 1e-3;
};

// A figure of a finished run in `dir`: round_time_s and max_round_time_s (the rounds' durations,
// from rounds.csv's sim_time_s), mean(COLUMN) and max(COLUMN) of a rounds.csv column, or a
// number of summary.json (a dotted key: faults.bytes_wasted). None when the run has no such
// figure (or an empty cell: a round not scored).
std::optional<double> run_figure(const std::string& dir, const std::string& figure);

// Runs the plan; prints the answer; `folder` gets the plan's folder. Exit code: 0 done (whatever
// the verdict), 1 a point's run failed, 2 bad input (the key, range, target or scenario), with a
// message naming it.
int plan_command(const PlanRequest& request, const std::string& fedgrid_executable, std::string& folder);

}  // namespace fedgrid

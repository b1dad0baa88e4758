#pragma once
// `fedgrid plan`'s search (sim/sweep/plan.hpp): the value of one scenario key at which a target
// on a run's figure stops holding, found by bracketing and bisection rather than a grid. The
// range's two ends say which way the target goes (holds at the low end and not at the high one:
// the answer is the largest value where it holds; the other way round, the smallest); then each
// step runs `jobs` points inside the bracket at once (evenly spaced, in log space when the range
// spans two decades or more) and keeps the two neighbours where the verdict flips. Integer keys
// stop at neighbouring integers (exact); real keys when the bracket is within `tolerance` of its
// ends (relative). Torch- and SimGrid-free: the runs are the caller's `evaluate`.
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fedgrid {

struct PlanTarget {
  std::string figure;  // round_time_s, max_round_time_s, mean(COLUMN), max(COLUMN), or a summary.json key
  bool at_most = true;  // <=; else >=
  double threshold = 0;
  // "FIGURE <= against": the figure of another scenario at the same point (plan --against); a
  // point's figure is then the difference, this scenario's less the other's, held against 0.
  bool against = false;
  bool holds(double value) const { return at_most ? value <= threshold : value >= threshold; }
  std::string text() const;  // as the user writes it: "round_time_s <= 60"
};

// Parses "FIGURE <= X", "FIGURE >= X", or with `against` for X; throws std::invalid_argument
// saying what is wrong.
PlanTarget parse_target(const std::string& text);

struct PlanRange {
  double lo = 0, hi = 0;
  bool integer = false;
  double tolerance = 1e-3;  // real keys: the bracket's relative width at which the search stops
};

// Parses "LO..HI" (numbers, LO < HI; integers for an integer key); throws std::invalid_argument.
PlanRange parse_range(const std::string& text, bool integer);

struct PlanPoint {
  double value = 0;
  std::optional<double> figure;  // none: the run failed or gave no such figure
  std::string error;
};

struct PlanResult {
  // boundary: the answer lies in [good, bad) (or (bad, good]); holds_everywhere, holds_nowhere:
  // the two ends agree, no boundary in the range; failed: a run failed (see the points).
  std::string verdict;
  bool largest = true;             // the answer is the largest value where the target holds
  std::optional<double> answer;    // the last value where it holds (boundary only)
  double good = 0, bad = 0;        // the bracket: where it holds, where it does not
  bool monotone = true;            // the evaluated points' verdicts flip once, their figures move one way
  std::vector<std::string> violations;  // where they do not
  std::vector<PlanPoint> points;   // in the order evaluated
};

using PlanEvaluate = std::function<std::vector<PlanPoint>(const std::vector<double>& values)>;

PlanResult plan_search(const PlanRange& range, const PlanTarget& target, int jobs, const PlanEvaluate& evaluate);

}  // namespace fedgrid

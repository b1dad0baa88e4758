#pragma once
// An accuracy curve recorded by an earlier real run (training.surrogate), so a timing-only
// run can report accuracy by round and stop on stop.target_accuracy without training.
#include <map>
#include <optional>
#include <string>

namespace fedgrid {

class AccuracyCurve {
 public:
  // Reads a CSV with `round` and `accuracy` columns (an earlier run's rounds.csv qualifies;
  // other columns are ignored, rows with an empty accuracy skipped). Throws InputError naming
  // the file, line and column of a bad cell.
  static AccuracyCurve load(const std::string& file);
  // Accuracy at `round`: the recorded value, linear between recorded rounds (a run that
  // evaluated every k rounds), none before the first or after the last recorded round.
  std::optional<double> at(int round) const;
  int last_round() const { return points_.empty() ? 0 : points_.rbegin()->first; }

 private:
  std::map<int, double> points_;
};

}  // namespace fedgrid

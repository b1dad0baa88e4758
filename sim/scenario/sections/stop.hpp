#pragma once
// stop.*: when the run ends (whichever comes first), early stopping included.
#include <optional>
#include <span>

#include "sim/core/mode_names.hpp"

namespace fedgrid {

// stop.monitor: the validation figure early stopping (stop.patience) watches, computed on the
// hospitals' validation splits (sim/engine/evaluation.hpp): its loss (lower is better) or its
// accuracy (higher is better).
enum class StopMonitor { ValLoss, ValAccuracy };
inline constexpr ModeName<StopMonitor> kStopMonitors[] = {{StopMonitor::ValLoss, "val_loss"},
                                                          {StopMonitor::ValAccuracy, "val_accuracy"}};
constexpr std::span<const ModeName<StopMonitor>> modes_of(StopMonitor) { return kStopMonitors; }

struct StopSection {
  int rounds = 20;
  std::optional<double> target_accuracy;
  std::optional<double> sim_time_budget_s;
  int patience = 0;  // early stopping: scored rounds' validation figure, rounds without gain (0: off)
  StopMonitor monitor = StopMonitor::ValLoss;
  double min_delta = 0;  // the smallest change of the monitored figure that counts as a gain
};

}  // namespace fedgrid

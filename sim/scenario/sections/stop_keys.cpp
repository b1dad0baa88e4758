// stop.*: its keys and its cross-key rules.
#include "sim/scenario/sections/parts.hpp"

namespace fedgrid::sections {

void stop_keys(Keys& k) {
  using S = Scenario;
  k.group("stop", "When the run ends (whichever comes first)")
      .bind<int>("stop.rounds", [](S& s) -> auto& { return s.stop.rounds; }, "20", "Maximum number of rounds", {.min = 1})
      .bind<double>("stop.target_accuracy", [](S& s) -> auto& { return s.stop.target_accuracy; }, none,
                    "Stop once global accuracy reaches this (0..1)", {.min = 0, .max = 1})
      .bind<double>("stop.sim_time_budget_s", [](S& s) -> auto& { return s.stop.sim_time_budget_s; }, none,
                    "Simulated wall-clock budget, s: runs every round that ends within it; a round that would end later is discarded",
                    {.min = 0, .min_exclusive = true})
      .bind<int>("stop.patience", [](S& s) -> auto& { return s.stop.patience; }, "0",
                 "Early stopping: scored rounds are compared on stop.monitor (a validation figure of the hospitals' "
                 "validation splits); the run stops this many rounds after the best one, and summary.json's final "
                 "figures are that round's (kept_round); 0: off",
                 {.min = 0});
  k.bind_mode<StopMonitor>(
      "stop.monitor", [](S& s) -> auto& { return s.stop.monitor; }, "val_loss",
      "val_loss | val_accuracy: the figure stop.patience watches, the model the round is scored with on the "
      "hospitals' validation splits (pooled; local models: the mean over hospitals of each on its own)")
      .bind<double>("stop.min_delta", [](S& s) -> auto& { return s.stop.min_delta; }, "0",
                    "With stop.patience: the smallest change of stop.monitor that counts as an improvement",
                    {.min = 0});
}

namespace {

bool patience(const Scenario& s) { return s.stop.patience > 0; }

}  // namespace

// Early stopping watches a validation figure: it needs validation splits and real training.
Rules stop_rules() {
  using S = const Scenario&;
  return {
      {{"stop.patience", "data.split.val"}, [](S s) { return patience(s) && s.data.split_val <= 0; },
       says("needs validation splits to watch (data.split.val > 0, e.g. 0.1)")},
      {{"stop.patience", "training.mode"}, [](S s) { return patience(s) && s.training.timing_only; },
       says("watches a validation figure of real training; a timing-only run has none")},
      {{"stop.monitor", "stop.patience"}, [](S s) { return given(s, "stop.monitor") && !patience(s); },
       says("is read only with stop.patience > 0")},
      {{"stop.min_delta", "stop.patience"}, [](S s) { return given(s, "stop.min_delta") && !patience(s); },
       says("is read only with stop.patience > 0")},
  };
}

}  // namespace fedgrid::sections

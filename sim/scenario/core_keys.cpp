// The simulator's own scenario keys, each declared once and bound to the Scenario field it
// fills (key_set.hpp), section by section (sim/scenario/keys/). Algorithms declare theirs next
// to their code; both join the key table.
#include "sim/scenario/core_keys.hpp"

#include "sim/scenario/keys/sections.hpp"

namespace fedgrid {
namespace {

using key_sections::none;

// The top level: the run's name and seed.
void top_level_keys(KeySet<Scenario>& k) {
  using S = Scenario;
  k.add("name", &S::name, "scenario", "Run name, used in summary.json and the default output dir")
      .add("seed", &S::seed, "42", "Seed of every random choice (model init, partition, shuffles, sampling)", {.min = 0});
}

// algorithm.name (the algorithm's own keys are its own declarations) and stop.*.
void algorithm_and_stop_keys(KeySet<Scenario>& k) {
  using S = Scenario;
  k.group("algorithm", "The federated algorithm and its own keys")
      .custom("algorithm.name", KeyType::String, "fedavg", "Algorithm (see `fedgrid list algorithms`)", {},
              [](S& s, const KeyValues& from) {
                s.algorithm.name = *from.value<std::string>("algorithm.name");
                s.algorithm.settings = from.section("algorithm");
              });

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

// The sections in the key table's order.
KeySet<Scenario> build() {
  KeySet<Scenario> k;
  top_level_keys(k);
  key_sections::platform_keys(k);
  key_sections::data_keys(k);
  key_sections::model_keys(k);
  key_sections::training_keys(k);
  algorithm_and_stop_keys(k);
  key_sections::timing_keys(k);
  key_sections::faults_keys(k);
  key_sections::compression_keys(k);
  key_sections::output_keys(k);
  return k;
}

}  // namespace

const KeySet<Scenario>& core_keys() {
  static const KeySet<Scenario> keys = build();
  return keys;
}

std::vector<KeyDecl> core_key_declarations() { return core_keys().declarations(""); }

}  // namespace fedgrid

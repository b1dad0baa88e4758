#include "algorithms/registry.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "sim/core/input_error.hpp"
#include "sim/engine/federation.hpp"
#include "sim/scenario/overrides.hpp"
#include "sim/scenario/scenario.hpp"

namespace fedgrid::algorithms {

// One line per algorithm file: FILE(x) names `std::vector<AlgorithmInfo> x_algorithms()`,
// defined in that file (a file may hold variants: fedseq and fedcross, heterofl and fedrolex).
#define FEDGRID_ALGORITHM_FILES(FILE) \
  FILE(fedavg)                        \
  FILE(fedprox)                       \
  FILE(fedopt)                        \
  FILE(fedasync)                      \
  FILE(fedbuff)                       \
  FILE(unifed)                        \
  FILE(fedseq)                        \
  FILE(local)                         \
  FILE(dynamicfl)                     \
  FILE(heterofl)                      \
  FILE(inclusivefl)                   \
  FILE(feddf)                         \
  FILE(fedskd)                        \
  FILE(fedbn)                         \
  FILE(unifiedfl)                     \
  FILE(ditto)                         \
  FILE(fedrep)                        \
  FILE(fedamp)                        \
  FILE(carpefl)                       \
  FILE(centralized)

#define FEDGRID_DECLARE(x) std::vector<AlgorithmInfo> x##_algorithms();
FEDGRID_ALGORITHM_FILES(FEDGRID_DECLARE)

const std::vector<AlgorithmInfo>& registry() {
  static const std::vector<AlgorithmInfo> all = [] {
    std::vector<AlgorithmInfo> out;
#define FEDGRID_APPEND(x) for (auto& a : x##_algorithms()) out.push_back(std::move(a));
    FEDGRID_ALGORITHM_FILES(FEDGRID_APPEND)
    return out;
  }();
  return all;
}

void install_algorithm_keys() {
  static const bool installed = [] {
    for (const auto& a : registry()) install_keys(a.name, a.keys);
    return true;
  }();
  (void)installed;
}

std::vector<AlgorithmKeys> algorithm_keys() {
  std::vector<AlgorithmKeys> out;
  for (const auto& a : registry()) out.push_back({a.name, a.keys});
  return out;
}

// What every algorithm's smallest scenario starts from: one hospital of each tier (for the
// algorithms that give tiers their own models), a synthetic set an mlp learns in two rounds.
constexpr const char* kSmallestScenario = R"(seed: 7
platform:
  hospitals:
    - {count: 1, tier: weak}
    - {count: 1, tier: medium}
    - {count: 1, tier: strong}
data:
  dataset: synthetic
  synthetic: {train_samples: 600, test_samples: 200, height: 12, width: 12}
model: {arch: mlp}
training: {lr: 0.05, batch_size: 16}
stop: {rounds: 2}
)";

std::string smallest_scenario(const AlgorithmInfo& algorithm) {
  YAML::Node root = YAML::Load(kSmallestScenario);
  std::vector<std::string> sets{"name=smallest-" + algorithm.name, "algorithm.name=" + algorithm.name};
  sets.insert(sets.end(), algorithm.smallest.begin(), algorithm.smallest.end());
  apply_overrides(root, sets);
  YAML::Emitter out;
  out << root;
  return std::string(out.c_str()) + "\n";
}

const AlgorithmInfo* find_algorithm(const std::string& name) {
  for (const auto& a : registry())
    if (a.name == name) return &a;
  return nullptr;
}

std::string algorithm_names() {
  std::string s;
  for (const auto& a : registry()) s += (s.empty() ? "" : ", ") + a.name;
  return s;
}

// The algorithms that take models at least as fine as `models` (per tier: per-hospital ones too),
// "a, b or c".
static std::string names_keeping(AlgorithmInfo::Models models) {
  std::vector<std::string> names;
  for (const auto& a : registry())
    if (a.models >= models) names.push_back(a.name);
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return s;
}

// The schedule's traits against the scenario's modes: what the engine could not run is refused
// here, before anything is simulated (the engine's backstops are internal errors).
static void check_traits(const AlgorithmInfo& a, const Scenario& s) {
  const AlgorithmInfo::Traits& t = a.traits;
  if (!t.needs_real_training.empty() && s.training.timing_only)
    throw s.error_at("training.mode", "algorithm '" + a.name + "' " + std::string(t.needs_real_training) +
                                          ": it needs real training");
  if (t.sends_peer_to_peer && s.timing.network == NetworkModel::Fluid)
    throw s.error_at("timing.network", "fluid models transfers to and from the server only; " + a.name +
                                           " sends between hospitals (use cm02)");
  if (!s.timing.cohorts) return;
  if (t.sends_peer_to_peer)
    throw s.error_at("timing.cohorts", "cohorts model traffic to and from the server only; " + a.name +
                                           " sends between hospitals: set timing.cohorts: false");
  if (t.acts_alone)
    throw s.error_at("timing.cohorts", "algorithm '" + a.name + "' has hospitals act on their own, outside a parallel "
                                       "step of their whole cohort: set timing.cohorts: false");
}

// The fraction of hospitals a selecting algorithm draws each round (algorithm.fraction).
static double drawn_fraction(const Scenario& s) {
  return s.algorithm.settings.for_algorithm(s.algorithm.name).value<double>("fraction").value_or(1);
}

// What needs the hospitals counted, on the set-up view: a draw that takes every hospital leaves
// faults.over_selection no one to add; one that does not takes cohorts apart.
static void check_draw(const AlgorithmInfo& a, const SetupView& setup) {
  const Scenario& s = setup.scenario;
  if (!a.traits.selects_fraction) return;
  const double fraction = drawn_fraction(s);
  const size_t n = setup.hospitals.size(), k = selected_count(fraction, n);
  const std::string draw = "algorithm.fraction " + fmt::format("{}", fraction) + " of " + std::to_string(n) +
                           " hospitals draws " + std::to_string(k);
  if (s.faults.over_selection > 0 && k == n)
    throw s.error_at("faults.over_selection",
                     "the round already selects every hospital (" + draw + "): there is no one more to select");
  if (s.timing.cohorts && k < n)
    throw s.error_at("timing.cohorts", "cohorts act whole, and " + draw + " one by one: set timing.cohorts: false "
                                       "or algorithm.fraction: 1");
}

void check_algorithm(const Scenario& s) {
  const auto* algorithm = find_algorithm(s.algorithm.name);
  if (!algorithm)
    throw s.error_at("algorithm.name", "unknown algorithm '" + s.algorithm.name + "' (known: " + algorithm_names() + ")");
  using Models = AlgorithmInfo::Models;
  if (!s.model.tiers.empty() && algorithm->models == Models::Shared)
    throw s.error_at("model." + s.model.tiers.begin()->first,
                     "algorithm '" + s.algorithm.name + "' trains one model for every hospital; per-tier models need " +
                         names_keeping(Models::PerTier));
  for (size_t g = 0; g < s.platform.hospitals.size(); ++g)
    if (s.platform.hospitals[g].model && algorithm->models != Models::PerHospital)
      throw s.error_at("platform.hospitals[" + std::to_string(g) + "].model",
                       "algorithm '" + s.algorithm.name + "' does not keep a model per hospital; per-hospital models "
                       "need " + names_keeping(Models::PerHospital));
  if (s.output.checkpoint_every > 0 && algorithm->cannot_checkpoint)
    if (const std::string why = algorithm->cannot_checkpoint(s); !why.empty())
      throw s.error_at("output.checkpoint_every", "algorithm '" + s.algorithm.name + "' cannot be checkpointed: " + why);
  if (algorithm->asynchronous && (s.faults.offline_probability > 0 || s.faults.deadline_s > 0 || s.faults.over_selection > 0))
    throw s.error_at(s.faults.offline_probability > 0 ? "faults.offline_probability"
                     : s.faults.deadline_s > 0       ? "faults.deadline_s"
                                                     : "faults.over_selection",
                     "an asynchronous schedule has no synchronous round for it to act on: "
                     "use faults.availability_trace, crashes or faults.link_trace");
  if (s.training.local_steps > 0 && algorithm->counts_epochs)
    throw s.error_at("training.local_steps", "algorithm '" + s.algorithm.name +
                                                 "' sizes its local training in epochs itself: use training.local_epochs");
  check_traits(*algorithm, s);
}

// Every check of the set-up view, the engine's on the algorithm's traits, then the entry's own:
// run and validate take their checks from here alone.
static std::function<void(const SetupView&)> set_up_checks(const AlgorithmInfo& a) {
  return [&a](const SetupView& setup) {
    check_draw(a, setup);
    if (a.check) a.check(setup);
  };
}

RunSummary run_algorithm(const Scenario& s, const RunOptions& options) {
  check_algorithm(s);
  const AlgorithmInfo& algorithm = *find_algorithm(s.algorithm.name);
  RunOptions with_columns = options;
  auto names = [](const std::vector<AlgorithmColumn>& columns) {
    std::vector<std::string> out;
    for (const auto& c : columns) out.push_back(c.name);
    return out;
  };
  with_columns.round_columns = names(algorithm.round_columns);
  with_columns.hospital_columns = names(algorithm.hospital_columns);
  with_columns.check = set_up_checks(algorithm);
  return run_scenario(s, with_columns, [&](Federation& fed) { algorithm.make()->run(fed); });
}

void validate_algorithm(const Scenario& s) {
  check_algorithm(s);
  set_up_only(s, set_up_checks(*find_algorithm(s.algorithm.name)));
}

}  // namespace fedgrid::algorithms

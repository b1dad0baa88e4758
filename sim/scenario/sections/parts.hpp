#pragma once
// What each section's source (sections/<section>_keys.cpp) gives the scenario: its keys,
// joined in the key table's order by core_keys.cpp, and its cross-key rules in groups, joined
// in the order problems are reported by cross_key_rules.cpp; and what those sources share. A
// rule goes with the section of the key it reports (its first), whatever other sections it
// reads. (The sources are not named as their headers, <section>.hpp, which the scenario
// includes: scripts/house_plan.py would take the pair for one room, in a cycle with it.)
#include <optional>
#include <string>
#include <vector>

#include "sim/scenario/cross_key_rules.hpp"
#include "sim/scenario/key_set.hpp"

namespace fedgrid::sections {

using Keys = KeySet<Scenario>;
using Rules = std::vector<CrossKeyRule>;
inline constexpr auto none = std::nullopt;

// platform.*: machines, hospital groups, network backbone (platform_keys.cpp).
void platform_keys(Keys& k);
Rules platform_hospital_rules();  // where the hospitals come from
Rules platform_xml_rules();       // keys read only with platform.xml

// data.*: dataset, partition, splits, tasks, site shift, augmentation, synthetic (data_keys.cpp).
void data_keys(Keys& k);
Rules data_split_rules();
Rules data_pool_rules();         // the dataset, its labels, the partition, augmentation
Rules data_timing_only_rules();  // keys of timing-only runs
bool known_dataset(const std::string& dataset);
std::string unknown_dataset(const std::string& dataset);  // the message

// model.*: the global model and the tiers' own (model_keys.cpp).
void model_keys(Keys& k);
// model.arch's allowed values: every arch of models/arch_names.hpp.
const std::vector<std::string>& arch_names();
// Widest model.width_multiplier: a global model up to 4x the plain one (DynamicFL's baselines
// prune the strong tier's model, which costs what a plain model with grown convs costs).
inline constexpr double kMaxWidth = 4;
// A model choice (an arch name, or {arch, width_multiplier}) under `name` of `from`; fields
// not given keep `base`'s.
std::optional<ModelChoice> model_choice(const KeyValues& from, const std::string& name, ModelChoice base);

// training.*: optimiser, job size, device and arithmetic (training_keys.cpp).
void training_keys(Keys& k);
Rules training_setting_rules();  // values the key table cannot check
Rules training_use_rules();      // what fusing and a surrogate exclude

// algorithm.name (algorithm_keys.cpp); stop.* (stop_keys.cpp).
void algorithm_keys(Keys& k);
void stop_keys(Keys& k);
Rules stop_rules();

// timing.*: how simulated time is charged (timing_keys.cpp).
void timing_keys(Keys& k);
Rules timing_compute_rules();      // timing.profile
Rules timing_cohort_rules();       // what cohorts need
Rules timing_network_rules();      // what cohorts and each network model exclude; models' own settings
Rules timing_compression_rules();  // cohorts against compression

// faults.* (faults_keys.cpp), compression.* (compression_keys.cpp), output.* (output_keys.cpp).
void faults_keys(Keys& k);
void compression_keys(Keys& k);
Rules compression_rules();
void output_keys(Keys& k);

// Shared by the rules: whether the scenario gives `key`, a fixed message, and the message of
// a key that only timing-only runs read.
inline bool given(const Scenario& s, const std::string& key) { return s.key_lines.count(key) > 0; }
inline std::function<std::string(const Scenario&)> says(std::string text) {
  return [text = std::move(text)](const Scenario&) { return text; };
}
inline const std::string kTimingOnly = "needs training.mode: timing-only (a real run trains on real data)";

}  // namespace fedgrid::sections

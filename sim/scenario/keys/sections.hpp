#pragma once
// The simulator's own keys by section, one function each (sim/scenario/keys/*.cpp), joined in
// order by core_keys.cpp; the order is the key table's (`fedgrid list keys`,
// docs/reference/keys.md). Shared by the sections: the model choice reader and its bounds.
#include <optional>
#include <string>
#include <vector>

#include "sim/scenario/key_set.hpp"

namespace fedgrid::key_sections {

using Keys = KeySet<Scenario>;
inline constexpr auto none = std::nullopt;

void platform_keys(Keys& k);  // platform.*: machines, hospital groups, network backbone
void data_keys(Keys& k);      // data.*: dataset, partition, splits, tasks, site shift, synthetic
void model_keys(Keys& k);     // model.*: the global model and the tiers' own
void training_keys(Keys& k);  // training.*: optimiser, job size, device and arithmetic
void timing_keys(Keys& k);    // timing.*: how simulated time is charged
void faults_keys(Keys& k);    // faults.*: hospitals offline, crashes, degrading links, deadlines
void compression_keys(Keys& k);  // compression.*: the codecs of model transfers, per direction
void output_keys(Keys& k);    // output.*: where and what to write

// model.arch's allowed values: every arch of models/arch_names.hpp.
const std::vector<std::string>& arch_names();
// Widest model.width_multiplier: a global model up to 4x the plain one (DynamicFL's baselines
// prune the strong tier's model, which costs what a plain model with grown convs costs).
inline constexpr double kMaxWidth = 4;
// A model choice (an arch name, or {arch, width_multiplier}) under `name` of `from`; fields
// not given keep `base`'s.
std::optional<ModelChoice> model_choice(const KeyValues& from, const std::string& name, ModelChoice base);

}  // namespace fedgrid::key_sections

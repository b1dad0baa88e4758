// InclusiveFL. R. Liu, F. Wu, C. Wu, Y. Wang, L. Lyu, H. Chen, X. Xie, "No One Left Behind:
// Inclusive Federated Learning over Heterogeneous Devices", KDD 2022.
//
// Hospitals of different capacity train models of different depth from one family: a weak
// tier the shallow model, a strong tier the deep one (model.<tier>: vgg5, vgg7, vgg9). Each
// round every hospital receives its depth's model, trains it E epochs and sends it back; the
// server then, layer by layer (layerwise_aggregation.hpp):
//   within a depth      the sample-weighted mean of its hospitals' models
//   momentum distillation   a shallower model's top layer moves by (1 - beta) its own update
//                       plus beta times the mean update of the next deeper model's layers from
//                       that height to its top: what the deeper model learnt above the
//                       shallow one's reach
//   across depths       every conv layer below a model's top is averaged over all the depths
//                       that hold it (weights: their samples); each top layer and fc head stays
//                       within its depth.
// The UnifiedFL paper (Pala & Rekik 2025) runs it as a baseline of its partially heterogeneous
// setting (VGG variants); scenarios/unifiedfl/fmnist_depth_*.yaml.
//
// Decisions where the paper's text, as available here, leaves the details open (taken from the
// mechanism of the authors' released code, where it runs):
// - The depth groups are the tiers' models; tiers with the same model form one group. Models
//   must be one VGG family (depth_family.hpp checks the shapes); a group's "next larger" model
//   is the next deeper group.
// - Each depth keeps its own fc head, and its top conv layer out of the cross-depth average
//   (the code's local classifier and local top layer).
// - Distillation mixes updates (the model's change over the round), not per-step gradients:
//   hospitals train E local epochs here rather than one server-side step, so the round's
//   update is what the code's per-step gradient becomes. The mean runs over the deeper model's
//   layers t .. its top (t: the shallow model's top), as the code's weights 1/(L_deep - L + 1)
//   intend; beta = 0.2 (`momentum_beta`), the code's default. The transfer uses this round's
//   deeper update (the code keeps it for the next round's step), and the updates as trained: a
//   deeper top's own mix is not passed further down.
// - Batch norm's running statistics and counter travel and average with their layer.
// - The shared layers start equal: every depth's conv layers are copied from the deepest
//   model's initial weights; each head keeps its own initialisation.
// - The global model (rounds.csv, summary.json) is the deepest depth's model; each hospital is
//   scored with its own depth's model (hospitals.csv).
// - Under faults: a depth none of whose hospitals arrived keeps its top layer and head, and
//   its shared layers follow the depths that trained; distillation skips a pair either of
//   whose depths did not train.
// Server work charged on the server host: a multiply and an add per value combined.
#include <algorithm>
#include <functional>
#include <map>
#include <stdexcept>

#include "algorithms/inclusivefl/depth_family.hpp"
#include "algorithms/inclusivefl/layerwise_aggregation.hpp"
#include "algorithms/registry.hpp"
#include "sim/core/input_error.hpp"
#include "sim/engine/federation.hpp"
#include "sim/jobs/training/plain_training.hpp"
#include "sim/scenario/key_set.hpp"

namespace fedgrid::algorithms {
namespace {

using inclusivefl::DepthLayers;

struct InclusiveSettings {
  double momentum_beta = 0.2;
};
const KeySet<InclusiveSettings>& inclusivefl_keys() {
  static const auto keys = KeySet<InclusiveSettings>().add(
      "momentum_beta", &InclusiveSettings::momentum_beta, "0.2",
      "inclusivefl: share of a shallower model's top-layer update taken from the next deeper model's layers above it "
      "(momentum distillation; 0 turns it off)",
      {.min = 0, .max = 1});
  return keys;
}

// The depths of the federation, shallow to deep: each its spec, layers and tiers.
struct Depth {
  models::ModelSpec spec;
  DepthLayers layers;
  std::vector<std::string> tiers;
};

// Tiers with the same model share a depth. check_inclusivefl has seen that every model is a
// VGG-style depth of one family.
std::vector<Depth> depths_of(const std::vector<std::string>& tiers,
                             const std::function<models::ModelSpec(const std::string&)>& spec_of) {
  std::vector<Depth> depths;
  for (const auto& tier : tiers) {
    const models::ModelSpec spec = spec_of(tier);
    auto same = std::find_if(depths.begin(), depths.end(), [&](const Depth& d) { return d.spec == spec; });
    if (same != depths.end()) same->tiers.push_back(tier);
    else depths.push_back({spec, inclusivefl::depth_layers(spec), {tier}});
  }
  std::stable_sort(depths.begin(), depths.end(),
                   [](const Depth& a, const Depth& b) { return a.layers.convs < b.layers.convs; });
  return depths;
}

// Every tier's model a VGG-style net, and the depths one family (AlgorithmInfo::check).
void check_inclusivefl(const SetupView& setup) {
  const Scenario& sc = setup.scenario;
  for (const auto& tier : setup.tiers) {
    try {
      inclusivefl::depth_layers(setup.tier_models.at(tier));
    } catch (const std::invalid_argument& e) {
      throw sc.error_at("model." + tier, std::string("inclusivefl: ") + e.what());
    }
  }
  std::vector<models::ModelSpec> specs;
  for (const auto& d : depths_of(setup.tiers, [&](const std::string& tier) { return setup.tier_models.at(tier); }))
    specs.push_back(d.spec);
  try {
    inclusivefl::check_depth_family(specs);
  } catch (const std::invalid_argument& e) {
    throw sc.error_at("model", std::string("inclusivefl: ") + e.what());
  }
}

// Each depth's initial model, its conv layers copied from the deepest model's.
std::vector<Model> initial_models(Federation& fed, const std::vector<Depth>& depths) {
  std::vector<Model> models;
  for (const auto& d : depths) models.push_back(fed.init_tier_model(d.tiers.front()));
  const Model& deepest = models.back();
  const DepthLayers& deep = depths.back().layers;
  if (!deepest.holds_state()) return models;  // timing-only: shapes only
  for (size_t g = 0; g + 1 < depths.size(); ++g)
    for (int l = 0; l < depths[g].layers.convs; ++l) {
      const auto to = depths[g].layers.layer_tensors(l), from = deep.layer_tensors(l);
      for (size_t k = 0; k < to.size(); ++k)
        std::copy_n(deepest.weights.begin() + from[k]->offset, to[k]->numel, models[g].weights.begin() + to[k]->offset);
    }
  return models;
}

class InclusiveFL : public Algorithm {
 public:
  void run(Federation& fed) override {
    const auto& sc = fed.scenario();
    const double beta = inclusivefl_keys().read(sc).momentum_beta;
    const std::vector<Depth> depths =
        depths_of(fed.tiers(), [&](const std::string& tier) { return fed.tier_spec(tier); });
    std::map<std::string, size_t> depth_of_tier;
    for (size_t g = 0; g < depths.size(); ++g)
      for (const auto& tier : depths[g].tiers) depth_of_tier[tier] = g;
    std::vector<Model> models = initial_models(fed, depths);
    for (int round = fed.first_round({{"models", models}}); !fed.done(round); ++round) {
      auto hospitals = fed.hospitals();
      auto updates = fed.parallel(hospitals, [&](Hospital& h) {
        const Model& mine = models[depth_of_tier.at(h.tier())];
        Update u = h.train(fed.send(fed.server(), h, mine), PlainTraining(sc.training.local_epochs));
        u.model = fed.send(h, fed.server(), u.model);
        return u;
      });
      if (!updates.empty()) {
        std::vector<inclusivefl::DepthGroup> groups;
        for (size_t g = 0; g < depths.size(); ++g) groups.push_back({&models[g], &depths[g].layers, {}});
        for (const auto& u : updates) groups[depth_of_tier.at(hospitals[size_t(u.hospital)]->tier())].updates.push_back(&u);
        if (models.front().holds_state())
          models = fed.on_server(inclusivefl::layerwise_flops(groups),
                                 [&] { return inclusivefl::layerwise_aggregate(groups, beta); });
        else
          fed.charge_server(inclusivefl::layerwise_flops(groups));  // timing-only: the same time, no values
      }
      std::map<std::string, Model> tier_models;
      for (const auto& [tier, g] : depth_of_tier) tier_models[tier] = models[g];
      fed.end_round(round, models.back(), tier_models);
    }
  }
};

}  // namespace

std::vector<AlgorithmInfo> inclusivefl_algorithms() {
  return {{.name = "inclusivefl",
           .description = "InclusiveFL (Liu et al. 2022): tiers train depths of one VGG family (model.<tier>), layers "
                          "averaged over the depths that share them, momentum distillation into shallower top layers",
           .make = [] { return std::make_unique<InclusiveFL>(); },
           .models = AlgorithmInfo::Models::PerTier,
           .counts_epochs = false,
           .keys = inclusivefl_keys().declarations(),
           .check = check_inclusivefl,
           // Depths of one VGG family, which needs 28x28.
           .smallest = {"model.arch=vgg9", "model.width_multiplier=0.125", "model.weak.arch=vgg5",
                        "model.medium.arch=vgg7", "data.synthetic.height=28", "data.synthetic.width=28"}}};
}

}  // namespace fedgrid::algorithms

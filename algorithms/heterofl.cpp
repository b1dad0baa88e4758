// HeteroFL. E. Diao, J. Ding, V. Tarokh, "HeteroFL: Computation and Communication Efficient
// Federated Learning for Heterogeneous Clients", ICLR 2021.
// FedRolex. S. Alam, L. Liu, M. Yan, M. Zhang, "FedRolex: Model-Heterogeneous Federated
// Learning with Rolling Sub-Model Extraction", NeurIPS 2022.
//
// The server holds one wide model (model.arch at model.width_multiplier). Each round every
// hospital receives its tier's sub-model (model.<tier>: the same arch, narrower), trains it E
// epochs, and sends it back; the server averages every wide value over the sub-models that
// hold it. HeteroFL's sub-model is the first ceil(r*K) channels of every hidden layer;
// FedRolex's window starts at channel (round - 1) mod K and wraps, so every channel is trained
// in turn. A narrower model costs fewer FLOPs and fewer bytes: weak tiers train and send less.
//
// Decisions where the DynamicFL paper (Zhang et al. 2025) leaves the baselines' settings open:
// - Widths come from the scenario (scenarios/dynamicfl/ uses 1, 1/2, 1/4 for strong/medium/weak).
// - Per-value averages are weighted by the hospitals' sample counts, as FedAvg's.
// - Batch norm keeps running statistics, averaged like the parameters, instead of HeteroFL's
//   static (batch-statistics-only) BN; HeteroFL's scaler and masked loss are not used.
// - A tier's model after the round (scored for fairness) is its sub-model of the new wide
//   model, cut at the window it trained this round.
// - Under faults (faults.*): every wide value is averaged over the sub-models that arrived and
//   hold it; a value no arrived sub-model holds, and a round where none arrived, keep the old.
#include <map>
#include <stdexcept>
#include <string>

#include "algorithms/registry.hpp"
#include "algorithms/submodel.hpp"
#include "sim/engine/federation.hpp"
#include "sim/jobs/training/plain_training.hpp"
#include "sim/core/input_error.hpp"

namespace fedgrid::algorithms {
namespace {

// Every tier's model is a sub-model of the wide one (AlgorithmInfo::check).
void check_submodels(const SetupView& setup) {
  for (const auto& tier : setup.tiers) {
    try {
      check_submodel(setup.model, setup.tier_models.at(tier));
    } catch (const std::invalid_argument& e) {
      throw setup.scenario.error_at("model." + tier, e.what());
    }
  }
}

class SubModelRounds : public Algorithm {
 public:
  explicit SubModelRounds(bool rolling) : rolling_(rolling) {}

  void run(Federation& fed) override {
    const auto& sc = fed.scenario();
    Model global = fed.init_model();
    // Which wide values each tier's sub-model holds: fixed for HeteroFL, rolled every round for
    // FedRolex (every tier's model is a sub-model: check_submodels).
    std::map<std::string, std::vector<int64_t>> index;
    for (const auto& tier : fed.tiers()) index[tier] = submodel_index(global.spec, fed.tier_spec(tier), 0);
    for (int round = fed.first_round({{"global", global}}); !fed.done(round); ++round) {
      if (rolling_ && round > 1)
        for (const auto& tier : fed.tiers()) index[tier] = submodel_index(global.spec, fed.tier_spec(tier), round - 1);
      std::map<std::string, Model> sub;
      for (const auto& tier : fed.tiers()) sub[tier] = extract_submodel(global, fed.tier_spec(tier), index[tier]);
      auto hospitals = fed.hospitals();
      auto updates = fed.parallel(hospitals, [&](Hospital& h) {
        const Model& mine = sub.at(h.tier());
        Update u = h.train(fed.send(fed.server(), h, mine), PlainTraining(sc.training.local_epochs));
        u.model = fed.send(h, fed.server(), u.model);
        return u;
      });
      std::vector<const std::vector<int64_t>*> held;
      for (const auto& u : updates) held.push_back(&index.at(hospitals[size_t(u.hospital)]->tier()));
      if (!updates.empty())
        global = fed.on_server(aggregate_submodels_flops(updates),
                               [&] { return aggregate_submodels(global, updates, held); });
      std::map<std::string, Model> tier_models;
      for (const auto& tier : fed.tiers())
        tier_models[tier] = extract_submodel(global, fed.tier_spec(tier), index.at(tier));
      fed.end_round(round, global, tier_models);
    }
  }

 private:
  bool rolling_;
};

}  // namespace

std::vector<AlgorithmInfo> heterofl_algorithms() {
  return {{.name = "heterofl",
           .description = "HeteroFL (Diao et al. 2021): each tier trains the first ceil(r*K) channels of the wide model "
                          "(model.<tier>), per-value averaging",
           .make = [] { return std::make_unique<SubModelRounds>(false); },
           .models = AlgorithmInfo::Models::PerTier,
           .check = check_submodels,
           .smallest = {"model.weak.arch=mlp", "model.weak.width_multiplier=0.5"}},
          {.name = "fedrolex",
           .description = "FedRolex (Alam et al. 2022): HeteroFL with a channel window that rolls by one every round",
           .make = [] { return std::make_unique<SubModelRounds>(true); },
           .models = AlgorithmInfo::Models::PerTier,
           .check = check_submodels,
           .smallest = {"model.weak.arch=mlp", "model.weak.width_multiplier=0.5"}}};
}

}  // namespace fedgrid::algorithms

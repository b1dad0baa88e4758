// FedDF. T. Lin, L. Kong, S. U. Stich, M. Jaggi, "Ensemble Distillation for Robust Model Fusion
// in Federated Learning", NeurIPS 2020.
//
// Hospitals of different tiers train different architectures (model.<tier>); the server keeps
// one model per architecture, plus its own (model.arch). Each round every hospital receives
// its architecture's model, trains E epochs and sends it back. The server
//   1. averages the returned models within each architecture (FedAvg, sample-weighted);
//   2. distils the ensemble of all returned models into each architecture's model: the
//      student starts from its average and learns the mean of the teachers' logits on the
//      server's unlabelled data (KL divergence, Adam).
// Messages are each hospital's own model, so tiers with larger models send more bytes.
//
// Decisions (the DynamicFL paper, Zhang et al. 2025, does not say which public dataset FedDF used):
// - The distillation set is the server's share of the training pool (data.server_share), used
//   without its labels; algorithm.distill_epochs passes over it (FedDF's early stopping on a
//   validation set is not used), Adam at algorithm.distill_lr (FedDF's 1e-3), temperature 1.
// - The global model reported in rounds.csv is the server's architecture (model.arch); each
//   tier is scored with its own architecture's distilled model.
// - Faults (faults.*): averaging and the ensemble use the models that arrived; an architecture
//   none of whose models arrived keeps its model, and a round where nothing arrived distils
//   nothing.
#include <map>
#include <string>

#include "algorithms/aggregation.hpp"
#include "algorithms/feddf/distillation.hpp"
#include "algorithms/registry.hpp"
#include "sim/scenario/key_set.hpp"
#include "sim/engine/federation.hpp"
#include "data/rng.hpp"
#include "sim/core/input_error.hpp"
#include "sim/core/seed_streams.hpp"
#include "sim/jobs/training/plain_training.hpp"

namespace fedgrid::algorithms {
namespace {

// (round): the order of the distillation's batches.
constexpr uint64_t kDistillStream = seed_streams::algorithm_stream(17);

struct FedDFSettings {
  int distill_epochs = 1;
  double distill_lr = 1e-3;
};
const KeySet<FedDFSettings>& feddf_keys() {
  static const auto keys =
      KeySet<FedDFSettings>()
          .add("distill_epochs", &FedDFSettings::distill_epochs, "1",
               "feddf: epochs of ensemble distillation over the server's data per round", {.min = 1})
          .add("distill_lr", &FedDFSettings::distill_lr, "0.001", "feddf: Adam learning rate of the distillation",
               {.min = 0, .min_exclusive = true});
  return keys;
}

void check_feddf(const SetupView& setup) {
  if (setup.server_train_samples == 0)
    throw setup.scenario.error_at("data.server_share",
                                  "feddf distils at the server: give the server a share of the data (e.g. 0.05)");
}

class FedDF : public Algorithm {
 public:
  void run(Federation& fed) override {
    const auto& sc = fed.scenario();
    const FedDFSettings own = feddf_keys().read(sc);
    // One model per architecture, by label; the tiers' choices and the server's own.
    std::map<std::string, Model> models;
    const Model server_model = fed.init_model();
    const std::string server_arch = models::spec_label(server_model.spec);
    models.emplace(server_arch, server_model);
    std::map<std::string, std::string> arch_of;  // tier -> label
    for (const auto& tier : fed.tiers()) {
      Model m = fed.init_tier_model(tier);
      arch_of[tier] = models::spec_label(m.spec);
      models.emplace(arch_of[tier], std::move(m));
    }

    for (int round = fed.first_round({{"models", models}}); !fed.done(round); ++round) {
      auto updates = fed.parallel(fed.hospitals(), [&](Hospital& h) {
        const Model& mine = models.at(arch_of.at(h.tier()));
        Update u = h.train(fed.send(fed.server(), h, mine), PlainTraining(sc.training.local_epochs));
        u.model = fed.send(h, fed.server(), u.model);
        return u;
      });
      // 1. FedAvg within each architecture.
      for (auto& [arch, model] : models) {
        std::vector<Update> group;
        for (const auto& u : updates)
          if (models::spec_label(u.model.spec) == arch) group.push_back(u);
        if (!group.empty()) model = fed.on_server(weighted_average_flops(group), [&] { return weighted_average(group); });
      }
      // 2. Distil the ensemble of every returned model into each architecture.
      if (updates.empty()) {
        std::map<std::string, Model> tier_models;
        for (const auto& [tier, arch] : arch_of) tier_models[tier] = models.at(arch);
        fed.end_round(round, models.at(server_arch), tier_models);
        continue;
      }
      const data::Indices& unlabelled = fed.server_data().train;
      std::vector<const Model*> teachers;
      for (const auto& u : updates) teachers.push_back(&u.model);
      EnsembleLogits ensemble(teachers, unlabelled);
      fed.run_on_server(ensemble);
      const Distillation::Settings settings{own.distill_epochs, sc.training.batch_size, own.distill_lr,
                                            mix_seed(sc.seed, kDistillStream, uint64_t(round))};
      for (auto& [arch, model] : models) {
        Distillation distillation(model, unlabelled, ensemble.logits(), settings);
        fed.run_on_server(distillation);
        model = distillation.result();
      }

      std::map<std::string, Model> tier_models;
      for (const auto& [tier, arch] : arch_of) tier_models[tier] = models.at(arch);
      fed.end_round(round, models.at(server_arch), tier_models);
    }
  }
};

}  // namespace

std::vector<AlgorithmInfo> feddf_algorithms() {
  return {{.name = "feddf",
           .description = "FedDF (Lin et al. 2020): per-architecture FedAvg, then the ensemble of all client models "
                          "distilled into each on the server's unlabelled data",
           .make = [] { return std::make_unique<FedDF>(); },
           .models = AlgorithmInfo::Models::PerTier,
           .counts_epochs = false,
           .keys = feddf_keys().declarations(),
           .check = check_feddf,
           .seed_streams = {kDistillStream},
           // Two architectures to distil between, and the server's data to distil on.
           .smallest = {"model.weak.arch=mlp", "model.weak.width_multiplier=0.5", "data.server_share=0.1"}}};
}

}  // namespace fedgrid::algorithms

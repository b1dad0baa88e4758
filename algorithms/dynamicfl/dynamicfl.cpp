// DynamicFL. F. Zhang, D. Zhai, G. Bai, J. Jiang, Q. Ye, X. Ji, X. Liu, "Towards fairness-aware
// and privacy-preserving enhanced collaborative learning for healthcare", Nature
// Communications 16, 2852 (2025).
//
// The global model is the plain model of the weakest tier. Each round, in parallel, every
// hospital:
//   1. receives the plain global model omega_g;
//   2. trains it one epoch, measuring each KxK conv's global salience S^g = sum(grad * w);
//   3. grows its tier's budget of convs (the highest S^g) into diverse-branch blocks, which
//      compute exactly what the plain convs did (BN recalibration, then the KxK branch takes
//      the remainder);
//   4. trains the grown model E - 1 epochs, recording each conv's local salience S^l;
//   5. folds every block back into one KxK conv and uploads the plain model.
// The server averages the plain models. Every hospital sends and receives the plain model's
// bytes whatever its tier; stronger tiers pay more compute (models::dbb_extra_flops).
// Budget decrease (Eq. 8): a hospital whose budget this round is below what it grew last
// round skips the probe epoch, grows the convs its last S^l ranks highest, and trains all E
// epochs on the grown model.
//
// Decisions where the paper leaves the choice open:
// - Budgets: a count of grown convs per tier, algorithm.expansions (0/1/2 as the code);
//   algorithm.budget_changes lowers or raises a tier's count from a given round.
// - DYMM: the code's stateless "grow the top-k by S^g every round" is the normal path;
//   the paper's merge-redundant / expand-important branch surgery needs thresholds the paper
//   does not give and is not implemented. The only state a hospital keeps is its last grown
//   count and S^l, for the budget-decrease path.
// - Salience: signed sum(grad * w) averaged over the epoch's iterations, as the code.
// - Probe epoch: a real training epoch (the paper's "local training"), not the code's
//   no-update pass; so every tier trains E epochs, and a tier that grows nothing trains exactly
//   as FedAvg does.
//   The probe and the grown epochs are two jobs: the optimiser restarts after growth, as
//   DyRep re-points it at the new parameters. A tier with nothing to grow trains its E epochs
//   in one job; with E = 1 the probe epoch is all a round holds and nothing grows (the code's
//   E - 1 = 0 grown epochs).
// - Fused bias: folded into the following batch norm's running mean (exact), never dropped.
// - Aggregation: sample-weighted over the whole state (buffers too), as FedAvg; equal to
//   the code's uniform mean when shards are equal.
// - BN recalibration: all blocks grown in a round together, over algorithm.recal_batches
//   mini-batches (the code recalibrates 20 batches after each growth).
// - Fairness: every tier holds a re-parameterization of the global model, so each tier's
//   accuracy is the global model's.
// - Faults (faults.*): the average of the updates that arrived (none: the global model stays).
//   A hospital whose upload was lost still remembers what it grew (its memory is local).
#include <map>
#include <string>

#include "algorithms/aggregation.hpp"
#include "algorithms/dynamicfl/growth_job.hpp"
#include "algorithms/registry.hpp"
#include "sim/scenario/key_set.hpp"
#include "data/rng.hpp"
#include "sim/engine/federation.hpp"
#include "sim/core/input_error.hpp"
#include "sim/core/seed_streams.hpp"

namespace fedgrid::algorithms {
namespace {

// (hospital + 1, round): the new branches a grown block starts from.
constexpr uint64_t kReparamStream = seed_streams::algorithm_stream(16);

struct BudgetChange {
  int round = 1;
  std::string tier;
  int expansions = 0;
};
struct DynamicFLSettings {
  int weak = 0, medium = 1, strong = 2;  // algorithm.expansions.<tier>
  std::vector<BudgetChange> budget_changes;
  int recal_batches = 20;
  std::map<std::string, int> expansions() const { return {{"weak", weak}, {"medium", medium}, {"strong", strong}}; }
};
const KeySet<DynamicFLSettings>& dynamicfl_keys() {
  using S = DynamicFLSettings;
  static const auto keys =
      KeySet<S>()
          .group("expansions", "dynamicfl: convs each tier grows into diverse-branch blocks per round")
          .add("expansions.weak", &S::weak, "0", "dynamicfl: convs the weak tier grows (0 = trains the plain global model)",
               {.min = 0})
          .add("expansions.medium", &S::medium, "1", "dynamicfl: convs the medium tier grows", {.min = 0})
          .add("expansions.strong", &S::strong, "2", "dynamicfl: convs the strong tier grows", {.min = 0})
          .list("budget_changes", &S::budget_changes,
                "dynamicfl: from `round` on, `tier` can afford only `expansions` grown convs",
                KeySet<BudgetChange>()
                    .add("round", &BudgetChange::round, std::nullopt, "First round with the new budget",
                         {.min = 1, .required = true})
                    .add("tier", &BudgetChange::tier, std::nullopt, "Tier whose budget changes",
                         {.allowed = {"weak", "medium", "strong"}, .required = true})
                    .add("expansions", &BudgetChange::expansions, std::nullopt, "Convs the tier can grow from then on",
                         {.min = 0, .required = true}))
          .add("recal_batches", &S::recal_batches, "20",
               "dynamicfl: mini-batches that recalibrate a grown block's batch norms (DyRep's 20)", {.min = 1});
  return keys;
}

// Every tier present has a budget, and no budget grows more convs than the model has.
void check_budgets(const SetupView& setup) {
  const auto& sc = setup.scenario;
  const DynamicFLSettings settings = dynamicfl_keys().read(sc);
  const auto expansions = settings.expansions();
  const auto& budget_changes = settings.budget_changes;
  const int sites = int(models::conv_sites(setup.model).size());
  for (const auto& tier : setup.tiers) {
    if (!expansions.count(tier))
      throw sc.error_at("algorithm.expansions", "no budget for tier '" + tier + "' (dynamicfl knows weak, medium, strong)");
    if (expansions.at(tier) > sites)
      throw sc.error_at("algorithm.expansions." + tier,
                        std::to_string(expansions.at(tier)) + " grown convs asked, but model '" +
                            models::spec_label(setup.model) + "' has " + std::to_string(sites) + " KxK convs");
  }
  for (size_t i = 0; i < budget_changes.size(); ++i)
    if (budget_changes[i].expansions > sites)
      throw sc.error_at("algorithm.budget_changes[" + std::to_string(i) + "].expansions",
                        "more grown convs than model '" + models::spec_label(setup.model) + "' has (" +
                            std::to_string(sites) + ")");
}

class DynamicFL : public Algorithm {
 public:
  void run(Federation& fed) override {
    const auto& sc = fed.scenario();
    settings_ = dynamicfl_keys().read(sc);
    Model global = fed.init_model();
    // What each hospital remembers from its last round: convs grown and their local salience.
    const size_t n = fed.hospitals().size();
    std::vector<int> last_grown(n, 0);
    std::vector<std::vector<double>> last_salience(n);
    const int first = fed.first_round({{"global", global}, {"grown", last_grown}, {"salience", last_salience}});
    for (int round = first; !fed.done(round); ++round) {
      auto updates = fed.parallel(fed.hospitals(), [&](Hospital& h) {
        const Model& got = fed.send(fed.server(), h, global);  // trains on what arrived
        int& grown = last_grown[size_t(h.id())];
        std::vector<double>& salience = last_salience[size_t(h.id())];
        const int k = budget(h.tier(), round), E = sc.training.local_epochs;
        GrowthPlan plan{k, {}, settings_.recal_batches,
                        mix_seed(sc.seed, kReparamStream, uint64_t(h.id() + 1), uint64_t(round))};
        Update u;
        if (k == 0) {
          // Nothing to grow: E epochs of the plain model, as FedAvg trains it.
          SalienceProbe probe(E);
          u = h.train(got, probe);
          grown = 0, salience = probe.salience();
        } else if (round > 1 && k < grown) {
          // Eq. 8: last round's model is beyond this round's budget; grow what S^l ranks first.
          plan.rank = salience;
          GrowthTraining growth(global.spec, E, plan);
          u = h.train(got, growth);
          grown = int(growth.grown().size()), salience = growth.salience();
        } else {
          // The epsilon epoch on the plain model measures S^g, which picks the convs to grow.
          SalienceProbe probe(1);
          u = h.train(got, probe);
          grown = 0, salience = probe.salience();
          if (E > 1) {
            plan.rank = probe.salience();
            GrowthTraining growth(global.spec, E - 1, plan, 1);
            u = h.train(u.model, growth);
            grown = int(growth.grown().size()), salience = growth.salience();
          }
        }
        u.model = fed.send(h, fed.server(), u.model);  // the plain model: the same bytes for every tier
        return u;
      });
      if (!updates.empty())
        global = fed.on_server(weighted_average_flops(updates), [&] { return weighted_average(updates); });
      fed.end_round(round, global);
    }
  }

 private:
  // The tier's grown-conv count in `round`: algorithm.expansions, then every budget change
  // that has started, in the order given.
  int budget(const std::string& tier, int round) const {
    int k = settings_.expansions().at(tier);
    for (const auto& c : settings_.budget_changes)
      if (c.tier == tier && c.round <= round) k = c.expansions;
    return k;
  }

  DynamicFLSettings settings_;
};

}  // namespace

std::vector<AlgorithmInfo> dynamicfl_algorithms() {
  return {{.name = "dynamicfl",
           .description = "DynamicFL (Zhang et al. 2025): each tier grows its budget of convs into diverse-branch "
                          "blocks, trains, folds back exactly; plain-model averaging",
           .make = [] { return std::make_unique<DynamicFL>(); },
           .models = AlgorithmInfo::Models::Shared,
           .counts_epochs = true,
           .keys = dynamicfl_keys().declarations(),
           .check = check_budgets,
           .seed_streams = {kReparamStream},
           // Grows convs: a cnn, at the 28x28 its pools need.
           .smallest = {"model.arch=cnn", "data.synthetic.height=28", "data.synthetic.width=28"}}};
}

}  // namespace fedgrid::algorithms

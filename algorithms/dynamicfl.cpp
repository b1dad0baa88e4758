// DynamicFL. F. Zhang, D. Zhai, G. Bai, J. Jiang, Q. Ye, X. Ji, X. Liu, "Towards fairness-aware
// and privacy-preserving enhanced collaborative learning for healthcare", Nature
// Communications 16, 2852 (2025). Spec: shared/specs/003_resource_adaptive.md.
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
// Decisions on the spec's open points (section 8):
// - Budgets (8.3): a count of grown convs per tier, algorithm.expansions (0/1/2 as the code);
//   algorithm.budget_changes lowers or raises a tier's count from a given round.
// - DYMM (8.5): the code's stateless "grow the top-k by S^g every round" is the normal path;
//   the paper's merge-redundant / expand-important branch surgery needs thresholds the paper
//   does not give and is not implemented. The only state a hospital keeps is its last grown
//   count and S^l, for the budget-decrease path.
// - Salience (8.6): signed sum(grad * w) averaged over the epoch's iterations, as the code.
// - Probe epoch (8.7): a real training epoch (the paper's "local training"), not the code's
//   no-update pass; so every tier trains E epochs, and a tier that grows nothing trains exactly
//   as FedAvg does.
//   The probe and the grown epochs are two jobs: the optimiser restarts after growth, as
//   DyRep re-points it at the new parameters. A tier with nothing to grow trains its E epochs
//   in one job; with E = 1 the probe epoch is all a round holds and nothing grows (the code's
//   E - 1 = 0 grown epochs).
// - Fused bias (8.8): folded into the following batch norm's running mean (exact), never dropped.
// - Aggregation (8.10): sample-weighted over the whole state (buffers too), as FedAvg; equal to
//   the code's uniform mean when shards are equal.
// - BN recalibration: all blocks grown in a round together, over algorithm.recal_batches
//   mini-batches (the code recalibrates 20 batches after each growth).
// - Fairness (8.23): every tier holds a re-parameterization of the global model, so each tier's
//   accuracy is the global model's.
#include <map>
#include <string>

#include "algorithms/aggregation.hpp"
#include "algorithms/registry.hpp"
#include "data/rng.hpp"
#include "sim/federation.hpp"
#include "sim/input_error.hpp"
#include "sim/seed_streams.hpp"

namespace fedgrid::algorithms {
namespace {

class DynamicFL : public Algorithm {
 public:
  void run(Federation& fed) override {
    const auto& sc = fed.scenario();
    Model global = fed.init_model();
    check_budgets(fed, global);
    // What each hospital remembers from its last round: convs grown and their local salience.
    struct Memory {
      int grown = 0;
      std::vector<double> salience;
    };
    std::vector<Memory> memory(fed.hospitals().size());
    for (int round = 1; !fed.done(round); ++round) {
      auto updates = fed.parallel(fed.hospitals(), [&](Hospital& h) {
        fed.send(fed.server(), h, global);
        Memory& last = memory[size_t(h.id())];
        const int k = budget(sc, h.tier(), round), E = sc.training.local_epochs;
        ReparamPlan plan{k, {}, sc.algorithm.recal_batches,
                         mix_seed(sc.seed, seed_streams::kReparam, uint64_t(h.id() + 1), uint64_t(round))};
        Update u;
        if (k == 0) {
          // Nothing to grow: E epochs of the plain model, as FedAvg trains it.
          u = h.train_with_salience(global, E);
        } else if (round > 1 && k < last.grown) {
          // Eq. 8: last round's model is beyond this round's budget; grow what S^l ranks first.
          plan.rank = last.salience;
          u = h.train_reparam(global, E, plan);
        } else {
          // The epsilon epoch on the plain model measures S^g, which picks the convs to grow.
          u = h.train_with_salience(global, 1);
          plan.rank = u.salience;
          if (E > 1) u = h.train_reparam(u.model, E - 1, plan, 1);
        }
        last = {int(u.grown.size()), u.salience};
        fed.send(h, fed.server(), u.model);  // the plain model: the same bytes for every tier
        return u;
      });
      global = fed.on_server(weighted_average_flops(updates), [&] { return weighted_average(updates); });
      fed.end_round(round, global);
    }
  }

 private:
  // The tier's grown-conv count in `round`: algorithm.expansions, then every budget change
  // that has started, in the order given.
  static int budget(const Scenario& sc, const std::string& tier, int round) {
    int k = sc.algorithm.expansions.at(tier);
    for (const auto& c : sc.algorithm.budget_changes)
      if (c.tier == tier && c.round <= round) k = c.expansions;
    return k;
  }

  static void check_budgets(Federation& fed, const Model& global) {
    const auto& sc = fed.scenario();
    const int sites = int(models::conv_sites(global.spec).size());
    for (const auto& tier : fed.tiers()) {
      if (!sc.algorithm.expansions.count(tier))
        throw sc.error_at("algorithm.expansions", "no budget for tier '" + tier + "' (dynamicfl knows weak, medium, strong)");
      if (sc.algorithm.expansions.at(tier) > sites)
        throw sc.error_at("algorithm.expansions." + tier,
                          std::to_string(sc.algorithm.expansions.at(tier)) + " grown convs asked, but model '" +
                              models::spec_label(global.spec) + "' has " + std::to_string(sites) + " KxK convs");
    }
    for (size_t i = 0; i < sc.algorithm.budget_changes.size(); ++i)
      if (sc.algorithm.budget_changes[i].expansions > sites)
        throw sc.error_at("algorithm.budget_changes[" + std::to_string(i) + "].expansions",
                          "more grown convs than model '" + models::spec_label(global.spec) + "' has (" +
                              std::to_string(sites) + ")");
  }
};

}  // namespace

std::unique_ptr<Algorithm> make_dynamicfl() { return std::make_unique<DynamicFL>(); }

}  // namespace fedgrid::algorithms

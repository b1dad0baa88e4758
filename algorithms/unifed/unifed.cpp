// UniFed. A. Hassani, I. Rekik, "UniFed: A Universal Federation of a Mixture of Highly
// Heterogeneous Medical Image Classification Tasks", MLMI-MICCAI 2024. Algorithm 1:
//
//   round 1, in parallel: every hospital trains theta_0 for E_f epochs, returns its model and
//     its loss-slope score s_k (Eq. 2); the server ranks hospitals by score, easiest first;
//   every later round t: the global model is relayed through the server hospital by hospital
//     in that order; each trains it until its validation loss stops improving (patience z, at
//     most E_max epochs, best-validation weights kept) and returns model and new score;
//     the server trains its copy of the global model on its own data D^S the same way, and
//     mixes theta_{t+1} = alpha * theta_t^K + (1 - alpha) * theta_t^S; hospitals are re-ranked;
//   rounds stop when the mixed model's loss on the server's validation split has not improved
//     for `global_patience` rounds (or on the scenario's stop conditions).
//
// Decisions where the paper leaves the choice open, each the paper's reading unless said otherwise:
// - G_1 = theta_0: the first round only ranks the hospitals; its models are uploaded (the
//   paper sends them) but not aggregated. Round 1 in rounds.csv therefore scores theta_0.
// - The mixed model goes back to the first hospital of the next round (the authors' code
//   resumes each hospital's stale model instead).
// - alpha weights the last hospital's model, as in the paper's formula (the code gives alpha
//   to the server model: set algorithm.alpha to 0.3 for the code's mix).
// - The whole state is mixed, normalisation buffers included.
// - s_k is Eq. 2, the least-squares slope over the training batch losses of the whole visit.
// - E_f = 1 (paper; the code uses 5: algorithm.first_round_epochs).
// - Stopping: validation loss after every epoch; no improvement larger than min_delta for z
//   epochs in a row stops the visit; the best-validation weights are returned (the paper's
//   "weights which show the lowest validation error"; the code does not restore them).
// - Global stopping on the mixed model's loss on the server's validation split.
// - D^S is data.server_share of the pool (paper 5%), split train/val/test like a hospital's.
//   The server trains after the relay, serially, as Algorithm 1 lists it.
// - Optimizer state is fresh at every visit (nothing but weights and a score travels).
// - epoch_transfers counts hospitals' local epochs (the paper's "communication" unit); the
//   server's own epochs are not in it.
// - Transfers are float32 state plus the message header; an upload also carries the score
//   (4 bytes).
// - Faults (faults.*): a hospital lost in round 1 has no score and goes last in the order; a
//   lost visit is skipped (the chain goes on from the last hospital that delivered it) and
//   keeps its previous score.
#include <algorithm>
#include <limits>
#include <map>

#include "algorithms/registry.hpp"
#include "sim/scenario/key_set.hpp"
#include "algorithms/unifed/unifed_steps.hpp"
#include "algorithms/unifed/validated_visit.hpp"
#include "sim/core/input_error.hpp"
#include "sim/engine/federation.hpp"
#include "sim/jobs/plain_training.hpp"

namespace fedgrid::algorithms {
namespace {

constexpr int64_t kScoreBytes = 4;  // s_k as float32, next to the model

// The mixed model's loss on the server's validation split, charged as a forward pass over it
// on the server (the global stopping rule's measure).
class ServerValidationLoss : public ServerWork {
 public:
  ServerValidationLoss(const Model& model, const data::Indices& val) : model_(model), val_(val) {}
  void run(const data::Dataset& pool, ComputeDevice device) override {
    loss_ = run_evaluation(model_.spec, model_.weights, pool, &val_, device).loss;
  }
  double flops() const override { return models::model_cost(model_.spec).forward_flops * double(val_.size()); }
  double loss() const { return loss_; }

 private:
  const Model& model_;
  const data::Indices& val_;
  double loss_ = 0;
};

// The server's own visit: its copy of the global model trained on D^S like a hospital's.
Model train_on_server_share(Federation& fed, const Model& global, const StoppingRule& rule) {
  const auto& d = fed.server_data();
  if (d.train.empty() || d.val.empty())
    throw fed.scenario().error_at("data.server_share",
                                  "algorithm 'unifed' trains at the server: give the server a share of the data "
                                  "(e.g. 0.05) large enough for train and val samples");
  return fed.train_on_server(global, ValidatedVisit(rule)).model;
}

struct UniFedSettings {
  double alpha = 0.7;
  int first_round_epochs = 1, patience = 7, max_epochs = 50, global_patience = 10;
  double min_delta = 0.001;
};
const KeySet<UniFedSettings>& unifed_keys() {
  using S = UniFedSettings;
  static const auto keys =
      KeySet<S>()
          .add("alpha", &S::alpha, "0.7",
               "unifed: mixing weight of the last hospital's model against the server's; fedasync: alpha of "
               "alpha_t = alpha s(t - tau) (> 0)",
               {.min = 0, .max = 1})
          .add("first_round_epochs", &S::first_round_epochs, "1",
               "unifed: epochs of the parallel first round that ranks the hospitals", {.min = 1})
          .add("patience", &S::patience, "7", "unifed: epochs without validation improvement before a visit stops (z)",
               {.min = 1})
          .add("max_epochs", &S::max_epochs, "50", "unifed: most epochs of one dynamic visit (E_max)", {.min = 1})
          .add("min_delta", &S::min_delta, "0.001",
               "unifed: smallest validation-loss decrease that counts as improvement", {.min = 0})
          .add("global_patience", &S::global_patience, "10",
               "unifed: rounds without improvement of the mixed model's server validation loss before the run stops",
               {.min = 1});
  return keys;
}

class UniFed : public Algorithm {
 public:
  void run(Federation& fed) override {
    const UniFedSettings a = unifed_keys().read(fed.scenario());
    const StoppingRule rule{a.patience, a.max_epochs, a.min_delta};
    Model global = fed.init_model();
    std::map<int, double> score;
    double best_loss = std::numeric_limits<double>::infinity();
    int rounds_without_gain = 0;
    const int first = fed.first_round({{"global", global},
                                       {"score", score},
                                       {"best_loss", best_loss},
                                       {"rounds_without_gain", rounds_without_gain}});

    // Round 1: parallel first visit, E_f epochs, to score every hospital's task.
    if (first == 1) {
      if (fed.done(1)) return;
      auto visits = fed.parallel(fed.hospitals(), [&](Hospital& h) {
        fed.send(fed.server(), h, global);
        Update u = h.train(global, PlainTraining(a.first_round_epochs));
        fed.send_bytes(h, fed.server(), u.model.payload_bytes() + kScoreBytes);
        return u;
      });
      for (const auto& u : visits) score[u.hospital] = loss_slope(u.batch_losses);
      fed.end_round(1, global);
    }

    for (int round = std::max(first, 2); !fed.done(round); ++round) {
      // Sequential relay in curriculum order, each visit as long as its validation loss says.
      Model chain = global;
      const auto hospitals = fed.hospitals();
      std::vector<int> ids;
      for (const Hospital* h : hospitals) ids.push_back(h->id());
      for (int id : order_by_score(ids, score)) {
        Hospital* h = hospitals[size_t(id)];
        auto visited = fed.visit(*h, [&] {
          fed.send(fed.server(), *h, chain);
          Update u = h->train(chain, ValidatedVisit(rule));
          fed.send_bytes(*h, fed.server(), u.model.payload_bytes() + kScoreBytes);
          return u;
        });
        if (!visited) continue;
        score[h->id()] = loss_slope(visited->batch_losses);
        chain = std::move(visited->model);
      }
      // Server-side training on D^S from its copy of the previous global model, then mixing.
      const Model server_model = train_on_server_share(fed, global, rule);
      global = fed.on_server(mix_flops(global), [&] { return mix(a.alpha, chain, server_model); });
      fed.end_round(round, global);

      ServerValidationLoss validation(global, fed.server_data().val);
      fed.run_on_server(validation);
      const double loss = validation.loss();
      if (loss < best_loss - a.min_delta) best_loss = loss, rounds_without_gain = 0;
      else if (++rounds_without_gain >= a.global_patience) break;
    }
  }
};

}  // namespace

std::vector<AlgorithmInfo> unifed_algorithms() {
  return {{"unifed", "UniFed (Hassani & Rekik 2024): loss-slope ordered relay with validation-stopped visits, mixed with a server-trained model",
           [] { return std::make_unique<UniFed>(); }, AlgorithmInfo::Models::Shared, true, unifed_keys().declarations()}};
}

}  // namespace fedgrid::algorithms

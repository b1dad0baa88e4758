// UniFed. A. Hassani, I. Rekik, "UniFed: A Universal Federation of a Mixture of Highly
// Heterogeneous Medical Image Classification Tasks", MLMI-MICCAI 2024 (spec:
// shared/specs/001_unifed.md). Algorithm 1:
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
// Decisions where the paper is open (spec §8), each the paper's reading unless said otherwise:
//  1. G_1 = theta_0: the first round only ranks the hospitals; its models are uploaded (the
//     paper sends them) but not aggregated. Round 1 in rounds.csv therefore scores theta_0.
//  2. The mixed model goes back to the first hospital of the next round (the authors' code
//     resumes each hospital's stale model instead).
//  3. alpha weights the last hospital's model, as in the paper's formula (the code gives alpha
//     to the server model: set algorithm.alpha to 0.3 for the code's mix).
//  4. The whole state is mixed, normalisation buffers included.
//  5. s_k is Eq. 2, the least-squares slope over the training batch losses of the whole visit.
//  6. E_f = 1 (paper; the code uses 5: algorithm.first_round_epochs).
//  7. Stopping: validation loss after every epoch; no improvement larger than min_delta for z
//     epochs in a row stops the visit; the best-validation weights are returned (the paper's
//     "weights which show the lowest validation error"; the code does not restore them).
//  8. Global stopping on the mixed model's loss on the server's validation split.
//  9. D^S is data.server_share of the pool (paper 5%), split train/val/test like a hospital's.
//     The server trains after the relay, serially, as Algorithm 1 lists it.
// 14. Optimizer state is fresh at every visit (nothing but weights and a score travels).
// 16. epoch_transfers counts hospitals' local epochs (the paper's "communication" unit); the
//     server's own epochs are not in it.
// 17. Transfers are float32 state plus the message header; an upload also carries the score
//     (4 bytes).
#include <limits>
#include <map>

#include "algorithms/registry.hpp"
#include "algorithms/unifed_steps.hpp"
#include "sim/federation.hpp"

namespace fedgrid::algorithms {
namespace {

constexpr int64_t kScoreBytes = 4;  // s_k as float32, next to the model

class UniFed : public Algorithm {
 public:
  void run(Federation& fed) override {
    const auto& a = fed.scenario().algorithm;
    const StoppingRule rule{a.patience, a.max_epochs, a.min_delta};
    Model global = fed.init_model();
    std::map<int, double> score;

    // Round 1: parallel first visit, E_f epochs, to score every hospital's task.
    if (fed.done(1)) return;
    auto first = fed.parallel(fed.hospitals(), [&](Hospital& h) {
      fed.send(fed.server(), h, global);
      Update u = h.train(global, a.first_round_epochs);
      fed.send_bytes(h, fed.server(), u.model.payload_bytes() + kScoreBytes);
      return u;
    });
    for (const auto& u : first) score[u.hospital] = loss_slope(u.batch_losses);
    fed.end_round(1, global);

    double best_loss = std::numeric_limits<double>::infinity();
    int rounds_without_gain = 0;
    for (int round = 2; !fed.done(round); ++round) {
      // Sequential relay in curriculum order, each visit as long as its validation loss says.
      Model chain = global;
      const auto hospitals = fed.hospitals();
      std::vector<int> ids;
      for (const Hospital* h : hospitals) ids.push_back(h->id());
      for (int id : order_by_score(ids, score)) {
        Hospital* h = hospitals[size_t(id)];
        fed.send(fed.server(), *h, chain);
        Update u = h->train_until(chain, rule);
        fed.send_bytes(*h, fed.server(), u.model.payload_bytes() + kScoreBytes);
        score[h->id()] = loss_slope(u.batch_losses);
        chain = std::move(u.model);
      }
      // Server-side training on D^S from its copy of the previous global model, then mixing.
      const Model server_model = fed.train_on_server_until(global, rule).model;
      global = fed.on_server(mix_flops(global), [&] { return mix(a.alpha, chain, server_model); });
      fed.end_round(round, global);

      const double loss = fed.server_validation_loss(global);
      if (loss < best_loss - a.min_delta) best_loss = loss, rounds_without_gain = 0;
      else if (++rounds_without_gain >= a.global_patience) break;
    }
  }
};

}  // namespace

std::unique_ptr<Algorithm> make_unifed() { return std::make_unique<UniFed>(); }

}  // namespace fedgrid::algorithms

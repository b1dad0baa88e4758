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
//     for `global_patience` rounds (or on the scenario's stop conditions), and the server keeps
//     the best mixed model (algorithm.keep_best_round, below).
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
// - The model the run ends with (algorithm.keep_best_round: true): the mixed model with the
//   lowest loss on the server's validation split, the measure the global stop watches (Sec. 2:
//   "stopping at the optimal round", the result being "a set of weights which shows the lowest
//   validation error"); "lowest" by the stop's own rule, an improvement larger than min_delta,
//   as a visit keeps its weights. The row of the round the run stops in (global patience
//   spent, or stop.rounds reached) scores that model, so summary.json's final figures are
//   its; earlier rows score their own round's mix. A run cut by stop.sim_time_budget_s or
//   stop.target_accuracy ends on its last round's mix. The key defaults to false (the last
//   mix, what fedgrid did before) so that existing scenarios keep their outputs; the mixed
//   model is then scored before the stopping rule looks at it, with keep_best_round after.
//
// algorithm.variant: authors_code follows the implementation the paper links instead
// (github.com/basiralab/UniFed, main.ipynb) where it departs from the paper on chain continuity
// and optimizer state; the numbers it uses are keys set in scenarios/unifed/authors_code_unifed.yaml
// (first_round_epochs 5, data.server_share 0.2, alpha 0.3 for its 0.7 on the server model).
// - The mixed model is never sent back: in every sequential round the relay restarts from the
//   first hospital's own model (its last visit's, round 2: its first-round model), which it
//   holds, so that visit downloads nothing; the chain then goes hospital to hospital through
//   the server as in the paper. The mixed model is evaluated and is what the server trains from.
// - Optimizers persist: every hospital and the server keep SGD's momentum buffers from one
//   visit to the next, the first round included (the code creates one optimizer per client
//   once); they never travel. SGD only (the code's optimizer).
// - Visits return their last epoch's weights (the code saves the best checkpoint but does not
//   reload it); the first round is E_f epochs without validation.
// - Kept as in the paper reading above, not as the code: the stopping rule (the code adds a
//   cumulative count of decreases under 0.01), Eq. 2's slope (the code: mean first difference),
//   mixing of normalisation buffers (the code mixes parameters only).
// - epoch_transfers counts hospitals' local epochs (the paper's "communication" unit); the
//   server's own epochs are not in it.
// - Transfers are float32 state plus the message header; an upload also carries the score
//   (4 bytes).
// - Faults (faults.*): a hospital lost in round 1 has no score and goes last in the order; a
//   lost visit is skipped (the chain goes on from the last hospital that delivered it) and
//   keeps its previous score. authors_code: while no visit of the round has delivered, the next
//   hospital starts from its own model; a round where none did mixes the previous mix.
#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "sim/scenario/key_set.hpp"
#include "algorithms/unifed/unifed_steps.hpp"
#include "algorithms/unifed/validated_visit.hpp"
#include "sim/core/input_error.hpp"
#include "sim/engine/federation.hpp"
#include "sim/jobs/training/plain_training.hpp"

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
Model train_on_server_share(Federation& fed, const Model& global, const StoppingRule& rule,
                            MomentumBuffers* momentum) {
  return fed.train_on_server(global, ValidatedVisit(rule, momentum)).model;
}

// Both unifed and its control train at the server (train_on_server_share).
void check_server_share(const SetupView& setup) {
  if (setup.server_train_samples == 0 || setup.server_val_samples == 0)
    throw setup.scenario.error_at("data.server_share",
                                  "algorithm 'unifed' trains at the server: give the server a share of the data "
                                  "(e.g. 0.05) large enough for train and val samples");
}

// algorithm.variant: the paper's algorithm, or the authors' code (above).
enum class UniFedVariant { Paper, AuthorsCode };
inline constexpr ModeName<UniFedVariant> kUniFedVariants[] = {{UniFedVariant::Paper, "paper"},
                                                              {UniFedVariant::AuthorsCode, "authors_code"}};
constexpr std::span<const ModeName<UniFedVariant>> modes_of(UniFedVariant) { return kUniFedVariants; }

struct UniFedSettings {
  double alpha = 0.7;
  int first_round_epochs = 1, patience = 7, max_epochs = 50, global_patience = 10;
  double min_delta = 0.001;
  bool keep_best_round = false;
  UniFedVariant variant = UniFedVariant::Paper;
};
// The keys of the dynamic updates and the global stop, which the server-share control shares.
KeySet<UniFedSettings>& add_stopping_keys(KeySet<UniFedSettings>& keys) {
  using S = UniFedSettings;
  return keys
      .add("patience", &S::patience, "7", "unifed: epochs without validation improvement before a visit stops (z)",
           {.min = 1})
      .add("max_epochs", &S::max_epochs, "50", "unifed: most epochs of one dynamic visit (E_max)", {.min = 1})
      .add("min_delta", &S::min_delta, "0.001", "unifed: smallest validation-loss decrease that counts as improvement",
           {.min = 0})
      .add("global_patience", &S::global_patience, "10",
           "unifed: rounds without improvement of the mixed model's server validation loss before the run stops",
           {.min = 1})
      .add("keep_best_round", &S::keep_best_round, "false",
           "unifed: the run ends with the mixed model of lowest server validation loss (the paper's global early "
           "stopping), scored in the last round's row; false: with the last mix");
}

const KeySet<UniFedSettings>& unifed_keys() {
  using S = UniFedSettings;
  static const auto keys = [] {
    KeySet<S> k;
    k.add("alpha", &S::alpha, "0.7", "unifed: mixing weight of the last hospital's model against the server's",
          {.min = 0, .max = 1})
        .add("first_round_epochs", &S::first_round_epochs, "1",
             "unifed: epochs of the parallel first round that ranks the hospitals", {.min = 1});
    add_stopping_keys(k).mode("variant", &S::variant, "paper",
                              "unifed: paper | authors_code (the relay restarts from the first hospital's own model, "
                              "the mix is never sent back, optimizers persist, visits keep their last weights)");
    return k;
  }();
  return keys;
}

const KeySet<UniFedSettings>& server_only_keys() {
  static const auto keys = [] {
    KeySet<UniFedSettings> k;
    return add_stopping_keys(k);
  }();
  return keys;
}

void check_unifed(const SetupView& setup) {
  const Scenario& sc = setup.scenario;
  if (unifed_keys().read(sc).variant == UniFedVariant::AuthorsCode && sc.training.optimizer != Optimizer::Sgd)
    throw sc.error_at("training.optimizer", "unifed's variant authors_code keeps SGD's momentum buffers across "
                                            "visits, as the authors' code does: use sgd");
  check_server_share(setup);
}

class UniFed : public Algorithm {
 public:
  void run(Federation& fed) override {
    const auto& sc = fed.scenario();
    const UniFedSettings a = unifed_keys().read(sc);
    const bool authors_code = a.variant == UniFedVariant::AuthorsCode;
    const StoppingRule rule{a.patience, a.max_epochs, a.min_delta, !authors_code};
    const auto hospitals = fed.hospitals();
    Model global = fed.init_model();
    std::map<int, double> score;
    double best_loss = std::numeric_limits<double>::infinity();
    int rounds_without_gain = 0;
    Model best_global = a.keep_best_round ? global : Model{};  // keep_best_round
    std::vector<Model> own;                     // authors_code: each hospital's model, by id
    std::vector<MomentumBuffers> momentum;      // authors_code: each hospital's buffers, the server's last
    std::vector<Kept> kept{{"global", global},
                           {"score", score},
                           {"best_loss", best_loss},
                           {"rounds_without_gain", rounds_without_gain}};
    if (a.keep_best_round) kept.emplace_back("best_global", best_global);
    if (authors_code) {
      own.assign(hospitals.size(), global);
      momentum.resize(hospitals.size() + 1);
      kept.emplace_back("own", own);
      kept.emplace_back("momentum", momentum);
    }
    const int first = fed.first_round(std::move(kept));
    auto momentum_of = [&](size_t node) { return authors_code ? &momentum[node] : nullptr; };

    // Round 1: parallel first visit, E_f epochs, to score every hospital's task.
    if (first == 1) {
      if (fed.done(1)) return;
      auto visits = fed.parallel(hospitals, [&](Hospital& h) {
        const Model& got = fed.send(fed.server(), h, global);  // its upload below is bytes: uncompressed
        Update u = authors_code
                       ? h.train(got, ValidatedVisit({0, a.first_round_epochs}, momentum_of(size_t(h.id()))))
                       : h.train(got, PlainTraining(a.first_round_epochs));
        fed.send_bytes(h, fed.server(), u.model.payload_bytes() + kScoreBytes);
        return u;
      });
      for (const auto& u : visits) {
        score[u.hospital] = loss_slope(u.batch_losses);
        if (authors_code) own[size_t(u.hospital)] = u.model;
      }
      fed.end_round(1, global);
    }

    for (int round = std::max(first, 2); !fed.done(round); ++round) {
      // Sequential relay in curriculum order, each visit as long as its validation loss says.
      // The paper starts it from the global model; the authors' code from the first hospital's own.
      std::optional<Model> chain;
      if (!authors_code) chain = global;
      std::vector<int> ids;
      for (const Hospital* h : hospitals) ids.push_back(h->id());
      for (int id : order_by_score(ids, score)) {
        Hospital* h = hospitals[size_t(id)];
        auto visited = fed.visit(*h, [&] {
          const Model& start = chain ? fed.send(fed.server(), *h, *chain) : own[size_t(id)];
          Update u = h->train(start, ValidatedVisit(rule, momentum_of(size_t(id))));
          fed.send_bytes(*h, fed.server(), u.model.payload_bytes() + kScoreBytes);
          return u;
        });
        if (!visited) continue;
        score[h->id()] = loss_slope(visited->batch_losses);
        if (authors_code) own[size_t(id)] = visited->model;
        chain = std::move(visited->model);
      }
      // Server-side training on D^S from its copy of the previous global model, then mixing.
      const Model server_model = train_on_server_share(fed, global, rule, momentum_of(hospitals.size()));
      global = fed.on_server(mix_flops(global), [&] { return mix(a.alpha, chain ? *chain : global, server_model); });
      if (!a.keep_best_round) fed.end_round(round, global);

      ServerValidationLoss validation(global, fed.server_data().val);
      fed.run_on_server(validation);
      const double loss = validation.loss();
      const bool improved = loss < best_loss - a.min_delta;
      if (improved) {
        best_loss = loss, rounds_without_gain = 0;
        if (a.keep_best_round) best_global = global;
      }
      const bool stop = !improved && ++rounds_without_gain >= a.global_patience;
      if (a.keep_best_round) fed.end_round(round, stop || round == sc.stop.rounds ? best_global : global);
      if (stop) break;
    }
  }
};

// The control: UniFed's server branch alone. Every round the server trains its model on D^S
// with the same dynamic update, no hospital takes part (nothing is sent), and the same global
// stop (and keep_best_round) ends the run. It answers what the server's share teaches by
// itself, the same data UniFed's server model sees.
class ServerShareOnly : public Algorithm {
 public:
  void run(Federation& fed) override {
    const auto& sc = fed.scenario();
    const UniFedSettings a = server_only_keys().read(sc);
    const StoppingRule rule{a.patience, a.max_epochs, a.min_delta};
    Model global = fed.init_model();
    double best_loss = std::numeric_limits<double>::infinity();
    int rounds_without_gain = 0;
    Model best_global = global;
    const int first = fed.first_round({{"global", global},
                                       {"best_loss", best_loss},
                                       {"rounds_without_gain", rounds_without_gain},
                                       {"best_global", best_global}});
    for (int round = first; !fed.done(round); ++round) {
      global = train_on_server_share(fed, global, rule, nullptr);
      ServerValidationLoss validation(global, fed.server_data().val);
      fed.run_on_server(validation);
      const bool improved = validation.loss() < best_loss - a.min_delta;
      if (improved) best_loss = validation.loss(), rounds_without_gain = 0, best_global = global;
      const bool stop = !improved && ++rounds_without_gain >= a.global_patience;
      fed.end_round(round, a.keep_best_round && (stop || round == sc.stop.rounds) ? best_global : global);
      if (stop) break;
    }
  }
};

}  // namespace

std::vector<AlgorithmInfo> unifed_algorithms() {
  return {{.name = "unifed",
           .description = "UniFed (Hassani & Rekik 2024): loss-slope ordered relay with validation-stopped visits, "
                          "mixed with a server-trained model",
           .make = [] { return std::make_unique<UniFed>(); },
           .models = AlgorithmInfo::Models::Shared,
           .counts_epochs = true,
           .keys = unifed_keys().declarations(),
           .check = check_unifed,
           // Round 1 trains in parallel; the relay's visits from round 2 on (fed.visit) stop on
           // each hospital's validation loss (ValidatedVisit), as does the server's own training.
           .traits = {.needs_real_training = "stops local training on validation loss", .acts_alone = true},
           .smallest = {"data.server_share=0.1"}},
          {.name = "unifed_server_only",
           .description = "UniFed's control: the server's dynamic update on its own share (data.server_share) alone, "
                          "no hospital takes part, UniFed's global stop",
           .make = [] { return std::make_unique<ServerShareOnly>(); },
           .models = AlgorithmInfo::Models::Shared,
           .counts_epochs = true,
           .keys = server_only_keys().declarations(),
           .check = check_server_share,
           .traits = {.needs_real_training = "stops local training on validation loss"},
           .smallest = {"data.server_share=0.1"}}};
}

}  // namespace fedgrid::algorithms

// FedSKD. Z. Weng, W. Cai, B. Zhou, "FedSKD: Aggregation-free Model-heterogeneous Federated
// Learning using Multi-dimensional Similarity Knowledge Distillation", 2025 (arXiv:2503.18981).
//
// No server, no averaging: every hospital keeps its own model (its DAM), of its own width or
// architecture. Each round t a permutation O^t says from whom each hospital receives:
//   1. hospital j sends a copy of its DAM (its state after round t-1) to the i with O_i^t = j;
//   2. i trains its DAM together with the copy (the KTM) on its own data,
//      CE(DAM) + gamma * L_SKD(DAM, KTM) + CE(KTM)          (Eq. 2; algorithms/fedskd/skd_loss.hpp)
//   3. with the KTM's classifier frozen; a hospital with O_i^t = i trains its DAM alone (CE);
//   4. i discards the KTM and keeps its DAM, which travels on in round t+1.
// Schedules (algorithm.schedule): `barrier`, the paper's (round t starts everywhere once every
// hospital has finished round t-1), and `pipelined` (a hospital starts round t as soon as the
// model it receives has arrived: its sender finished t-1 and the transfer ended). A round's
// work depends only on the sender's model after t-1, so both compute the same models; only
// when things happen differs.
//
// Decisions where the paper leaves the choice open:
// - "iterations" are mini-batches: training.local_steps (the paper's 5N = 15 for 3 hospitals);
//   training.local_epochs when it is 0. Self-consolidation trains as long.
// - O^t is uniform over all N! permutations (fixed points are self-consolidation), drawn per
//   round from the scenario seed, so every hospital knows it without a coordinator.
// - both schedules (above).
// - both models train on the receiver's data (Eq. 2 and Fig. 3, not step 2's sentence).
// - before algorithm.skd_start_round the same loop runs with gamma = 0 (both CEs).
// - no stop-gradient on L_SKD; one Adam over DAM + KTM extractor, fresh each job, or with the
//   DAM's part kept across rounds (algorithm.persistent_adam; self-consolidation then steps the
//   same Adam); the KTM in train mode; the whole state (BN statistics too) travels
//   (algorithms/fedskd/mutual_job.cpp). Adam state never travels.
// - resnet10 in torchvision's layout, widths by width_multiplier (62/64 ...); random initial
//   weights, one draw per architecture from the seed; taps are each stage's output after its
//   ReLU (models::feature_taps), algorithm.skd_layers picks them (default: all).
// - P-SKD divides by (hw)^2; maps of different sizes: the KTM's resized bilinearly; no region
//   level (it needs an atlas).
// - the data: a Dirichlet label split of the pool, then each hospital's stratified train/test
//   split (one split, not 5-fold cross-validation); the last round's models count.
// - AUC is macro one-vs-rest over the classes present; the global test weights every
//   hospital's test split equally (Federation::end_round with local models).
// - no sex attribute; augmentation where a scenario sets data.augment (scenarios/fedskd/shifted_*.yaml:
//   every method's, as the paper's Sec. III-B3), applied by the epoch loop to the mutual job's batches.
// - baselines: FedAvg sample-weighted, FedProx mu = algorithm.mu, Local and the aggregation
//   methods 5 mini-batches a round, FedCross 5 per hospital it visits (scenarios/fedskd/).
// - faults (barrier schedule): an offline or crashed hospital keeps its DAM and sends nothing;
//   its receiver trains its DAM alone that round (self-consolidation), and the round goes on.
//   The pipelined schedule has no round to go on from and refuses faults.*.
#include <optional>

#include "algorithms/fedskd/mutual_job.hpp"
#include "algorithms/registry.hpp"
#include "sim/scenario/key_set.hpp"
#include "sim/engine/federation.hpp"
#include "sim/core/input_error.hpp"
#include "sim/jobs/training/plain_training.hpp"

namespace fedgrid::algorithms {
namespace {

// algorithm.schedule: barrier or pipelined (above).
enum class SkdSchedule { Barrier, Pipelined };
inline constexpr ModeName<SkdSchedule> kSkdSchedules[] = {{SkdSchedule::Barrier, "barrier"},
                                                          {SkdSchedule::Pipelined, "pipelined"}};
constexpr std::span<const ModeName<SkdSchedule>> modes_of(SkdSchedule) { return kSkdSchedules; }

struct FedSkdSettings {
  double gamma = 1;
  std::vector<int> skd_layers;  // 1-based stages; empty = all
  bool skd_batch = true, skd_pixel = true;
  int skd_start_round = 1;
  SkdSchedule schedule = SkdSchedule::Barrier;
  bool persistent_adam = false;
};
const KeySet<FedSkdSettings>& fedskd_keys() {
  using S = FedSkdSettings;
  static const auto keys =
      KeySet<S>()
          .add("gamma", &S::gamma, "1",
               "fedskd: weight of the similarity distillation loss L_SKD (the paper: 100 with Adam 1e-4 on skin, 1 on fMRI)",
               {.min = 0})
          .add("skd_layers", &S::skd_layers, std::nullopt,
               "fedskd: stages distilled, from 1 (resnet: 1..4 = layer1..layer4; default: every stage)", {.min = 1})
          .add("skd_batch", &S::skd_batch, "true", "fedskd: batch-level similarity (b x b)")
          .add("skd_pixel", &S::skd_pixel, "true", "fedskd: pixel-level similarity (hw x hw)")
          .add("skd_start_round", &S::skd_start_round, "1",
               "fedskd: first round with L_SKD (before it: both cross-entropies only)", {.min = 1})
          .mode("schedule", &S::schedule, "barrier",
                "fedskd: barrier (every round ends together) | pipelined (a hospital starts its next round once its model has arrived)")
          .add("persistent_adam", &S::persistent_adam, "false",
               "fedskd: each hospital keeps its DAM's Adam moments and step count from one round to the next (the "
               "KTM's part is fresh each round; needs training.optimizer adam); false: a fresh Adam every job");
  return keys;
}

// What fedskd needs of the scenario (AlgorithmInfo::check): models of as many stages, the
// stages it distils among them, a similarity level, Adam where it keeps Adam's state, no faults
// under the pipelined schedule.
void check_fedskd(const SetupView& setup) {
  const Scenario& sc = setup.scenario;
  const FedSkdSettings a = fedskd_keys().read(sc);
  const auto& first = setup.hospitals.front();
  const size_t stages = models::feature_taps(first.model).size();
  for (const auto& h : setup.hospitals)
    if (models::feature_taps(h.model).size() != stages)
      throw sc.error_at("model", "fedskd distils stage by stage, so every hospital's model needs as many stages: " +
                                     first.name + "'s has " + std::to_string(stages) + ", " + h.name + "'s " +
                                     models::spec_label(h.model) + " has " +
                                     std::to_string(models::feature_taps(h.model).size()));
  for (int l : a.skd_layers)
    if (l < 1 || size_t(l) > stages)
      throw sc.error_at("algorithm.skd_layers", "stage " + std::to_string(l) + " does not exist: the models have " +
                                                    std::to_string(stages) + " stages (1.." + std::to_string(stages) +
                                                    ")");
  if (!a.skd_batch && !a.skd_pixel && a.gamma > 0)
    throw sc.error_at("algorithm.skd_batch", "fedskd needs a similarity level: set skd_batch or skd_pixel (or gamma: 0)");
  if (a.persistent_adam && sc.training.optimizer != Optimizer::Adam)
    throw sc.error_at("algorithm.persistent_adam",
                      "keeps Adam's state, so it needs training.optimizer: adam, got '" +
                          std::string(mode_name(sc.training.optimizer)) + "'");
  if (a.schedule == SkdSchedule::Pipelined && sc.faults.any())
    throw sc.error_at("algorithm.schedule",
                      "the pipelined schedule cannot run under faults.* (a hospital waiting for a model that will not "
                      "come has no round to go on with): use schedule: barrier");
}

class FedSkd : public Algorithm {
 public:
  void run(Federation& fed) override {
    settings_ = fedskd_keys().read(fed.scenario());
    hospitals_ = fed.hospitals();
    for (Hospital* h : hospitals_) dams_.push_back(fed.init_hospital_model(*h));
    plan_ = skd_plan(fed);
    if (settings_.persistent_adam) adam_.resize(hospitals_.size());
    if (settings_.schedule == SkdSchedule::Pipelined) run_pipelined(fed);
    else run_barrier(fed);
  }

 private:
  void run_barrier(Federation& fed) {
    std::vector<Kept> kept{{"dams", dams_}};
    if (settings_.persistent_adam) kept.emplace_back("dam_adam", adam_);
    for (int round = fed.first_round(std::move(kept)); !fed.done(round); ++round) {
      const std::vector<int> from = senders(fed, round);
      auto updates = fed.parallel(hospitals_, [&](Hospital& h) { return *round_at(fed, h, round, from); });
      for (auto& u : updates) dams_[size_t(u.hospital)] = std::move(u.model);
      fed.end_round(round, dams_);
    }
  }

  // Every hospital runs its own rounds; the last to finish a round reports it.
  void run_pipelined(Federation& fed) {
    std::map<int, std::vector<Model>> finished;  // round -> the DAMs at its end
    std::map<int, size_t> count;
    fed.parallel(hospitals_, [&](Hospital& h) {
      for (int round = 1; fed.continues(round); ++round) {
        fed.enter_round(round);
        auto update = round_at(fed, h, round, senders(fed, round));
        if (!update) break;  // the run stopped while this hospital waited
        dams_[size_t(h.id())] = std::move(update->model);
        auto& at_end = finished[round];
        at_end.resize(hospitals_.size());
        at_end[size_t(h.id())] = dams_[size_t(h.id())];
        if (++count[round] == hospitals_.size()) {
          fed.end_round(round, at_end);
          finished.erase(round);
        }
      }
      return 0;
    });
    fed.done(fed.scenario().stop.rounds + 1);
  }

  // Steps 1-4 at hospital h in round t, given O^t; empty when the run stopped before h's model
  // arrived.
  std::optional<Update> round_at(Federation& fed, Hospital& h, int round, const std::vector<int>& from) {
    const int me = h.id();
    for (size_t i = 0; i < from.size(); ++i)  // 1. a copy of my DAM to whoever receives from me
      if (from[i] == me && int(i) != me) fed.post(h, *hospitals_[i], dams_[size_t(me)], round);
    const Model& dam = dams_[size_t(me)];
    const int epochs = fed.scenario().training.local_epochs;
    AdamState* adam = settings_.persistent_adam ? &adam_[size_t(me)] : nullptr;
    // Self-consolidation: the DAM alone (with its kept Adam, if any).
    auto alone = [&] {
      return adam ? h.train(dam, KeptAdamTraining(epochs, adam)) : h.train(dam, PlainTraining(epochs));
    };
    if (from[size_t(me)] == me) return alone();
    const std::optional<Model> ktm = fed.collect(h, round, *hospitals_[size_t(from[size_t(me)])]);
    if (!ktm && !fed.continues(round)) return std::nullopt;
    if (!ktm) return alone();  // faults: the sender's DAM will not come
    SkdPlan plan = plan_;
    if (round < settings_.skd_start_round) plan.gamma = 0;
    return h.train(dam, MutualLearning(&*ktm, plan, epochs, adam));  // 2-3; 4: the KTM goes out of scope
  }

  // O^t: from[i] = the hospital i receives from in round t.
  std::vector<int> senders(Federation& fed, int round) const {
    std::vector<int> from;
    for (Hospital* h : fed.order(round, Ordering::Random)) from.push_back(h->id());
    return from;
  }

  // check_fedskd has seen that every model has as many stages and skd_layers names stages of them.
  SkdPlan skd_plan(Federation& fed) const {
    const auto& a = settings_;
    const size_t stages = models::feature_taps(fed.hospital_spec(*hospitals_.front())).size();
    SkdPlan plan{a.gamma, a.skd_batch, a.skd_pixel, {}};
    for (int l : a.skd_layers) plan.layers.push_back(l - 1);
    if (a.skd_layers.empty())
      for (size_t l = 0; l < stages; ++l) plan.layers.push_back(int(l));
    return plan;
  }

  FedSkdSettings settings_;
  std::vector<Hospital*> hospitals_;
  std::vector<Model> dams_;  // by hospital id
  std::vector<AdamState> adam_;  // persistent_adam: each DAM's Adam state, by hospital id
  SkdPlan plan_;
};

}  // namespace

std::vector<AlgorithmInfo> fedskd_algorithms() {
  return {{.name = "fedskd",
           .description = "FedSKD (Weng et al. 2025): serverless; each round a permutation sends copies of hospitals' "
                          "models peer to peer, each trains its own with the received one by similarity distillation",
           .make = [] { return std::make_unique<FedSkd>(); },
           .models = AlgorithmInfo::Models::PerHospital,
           .counts_epochs = false,
           .keys = fedskd_keys().declarations(),
           .cannot_checkpoint =
               [](const Scenario& s) {
                 return fedskd_keys().read(s).schedule == SkdSchedule::Pipelined
                            ? std::string("in the pipelined schedule hospitals are always in different rounds, with "
                                          "models in flight (algorithm.schedule: barrier can be)")
                            : std::string();
               },
           .check = check_fedskd,
           .traits = {.sends_peer_to_peer = true}}};
}

}  // namespace fedgrid::algorithms

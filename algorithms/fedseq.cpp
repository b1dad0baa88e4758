// FedSeq: sequential (cyclic) federated training, as in the "sequential" baselines of the
// seed papers (e.g. UniFed's FedSeq; Chang et al. 2018 cyclical weight transfer).
//
// One model is relayed hospital by hospital through the server: download, train E local
// epochs, upload, next hospital. A round is one pass over all hospitals.
//
// FedCross as FedSKD's paper runs it (Weng, Cai, Zhou 2025, its ref. [27]): "circulating a
// single global model among clients for sequential training" — the same relay with no server:
// the model hops from hospital to hospital over their own links. Decision where the paper leaves
// the choice open: a hop trains the paper's 5 iterations (training.local_steps), so a round is
// 5N; the model starts where the first hop of round 1 is (its initial weights come from the
// shared seed: no transfer).
//
// Under faults (faults.*) a missing hospital is skipped: the model goes on from the last
// hospital that delivered it (FedCross: it is taken from that hospital, whose copy is assumed
// to survive a later crash of its host).
#include "algorithms/registry.hpp"
#include "sim/scenario/key_set.hpp"
#include "sim/engine/federation.hpp"
#include "sim/jobs/training/plain_training.hpp"

namespace fedgrid {

// algorithm.order: the names of the Federation's relay orders (sim/engine/federation.hpp), a
// mode of fedseq and fedcross only, so its table is here.
inline constexpr ModeName<Ordering> kOrderings[] = {{Ordering::Fixed, "fixed"}, {Ordering::Random, "random"}};
constexpr std::span<const ModeName<Ordering>> modes_of(Ordering) { return kOrderings; }

namespace algorithms {
namespace {

struct FedSeqSettings {
  Ordering order = Ordering::Fixed;
};
const KeySet<FedSeqSettings>& fedseq_keys() {
  static const auto keys = KeySet<FedSeqSettings>().mode(
      "order", &FedSeqSettings::order, "fixed", "fedseq, fedcross: relay order each round: fixed (by id) | random");
  return keys;
}

class FedSeq : public Algorithm {
 public:
  explicit FedSeq(bool peer_to_peer) : peer_to_peer_(peer_to_peer) {}
  void run(Federation& fed) override {
    const auto& sc = fed.scenario();
    const Ordering ordering = fedseq_keys().read(sc).order;
    Model model = fed.init_model();
    int holder = -1;  // FedCross: the hospital where the model is
    for (int round = fed.first_round({{"model", model}, {"holder", holder}}); !fed.done(round); ++round) {
      for (Hospital* h : fed.order(round, ordering)) {
        auto trained = fed.visit(*h, [&] {
          const Model* start = &model;  // what arrived (compression.*), or the model where it is
          if (!peer_to_peer_) start = &fed.send(fed.server(), *h, model);
          else if (holder >= 0 && holder != h->id()) start = &fed.send(*fed.hospitals()[size_t(holder)], *h, model);
          Model m = h->train(*start, PlainTraining(sc.training.local_epochs)).model;
          if (!peer_to_peer_) m = fed.send(*h, fed.server(), m);
          return m;
        });
        if (!trained) continue;
        model = std::move(*trained);
        holder = h->id();
      }
      fed.end_round(round, model);
    }
  }

 private:
  bool peer_to_peer_;
};

}  // namespace

std::vector<AlgorithmInfo> fedseq_algorithms() {
  const auto keys = fedseq_keys().declarations();
  return {{.name = "fedseq",
           .description = "FedSeq: one model relayed through the server, hospital by hospital",
           .make = [] { return std::make_unique<FedSeq>(false); },
           .keys = keys,
           .traits = {.acts_alone = true}},
          {.name = "fedcross",
           .description = "FedCross (Xu et al.): one model relayed hospital to hospital peer to peer, no server",
           .make = [] { return std::make_unique<FedSeq>(true); },
           .keys = keys,
           .traits = {.sends_peer_to_peer = true, .acts_alone = true}}};
}

}  // namespace algorithms
}  // namespace fedgrid

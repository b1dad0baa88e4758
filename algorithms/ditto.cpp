// Ditto. T. Li, S. Hu, A. Beirami, V. Smith, "Ditto: Fair and Robust Federated Learning
// Through Personalization", ICML 2021 (Algorithm 1).
//
// The global model w is FedAvg's: each round every selected hospital receives w^t, trains it
// locally and sends it back; the server takes the sample-weighted average. Beside it, each
// hospital keeps a personal model v_k, trained the same round on
//   h_k(v; w^t) = F_k(v) + (lambda / 2) ||v - w^t||^2
// from its own last v_k (the paper's Algorithm 1 with the same local epochs for both; v_k never
// leaves the hospital). Hospitals are scored with v_k. Messages are FedAvg's; each hospital
// trains twice per round, and is charged for both jobs.
// Under faults a hospital whose round is lost keeps its last v_k; w is FedAvg's average of what
// arrived.
#include "algorithms/aggregation.hpp"
#include "algorithms/proximal.hpp"
#include "algorithms/registry.hpp"
#include "sim/engine/federation.hpp"
#include "sim/jobs/training/plain_training.hpp"
#include "sim/scenario/key_set.hpp"

namespace fedgrid::algorithms {
namespace {

struct DittoSettings {
  double lambda = 0.1;
};

const KeySet<DittoSettings>& ditto_keys() {
  static const auto keys = KeySet<DittoSettings>().add(
      "ditto_lambda", &DittoSettings::lambda, "0.1",
      "ditto: lambda of the personal objective F_k(v) + (lambda/2)||v - w||^2", {.min = 0});
  return keys;
}

class Ditto : public Algorithm {
 public:
  void run(Federation& fed) override {
    const Scenario& sc = fed.scenario();
    const double lambda = ditto_keys().read(sc).lambda;
    Model global = fed.init_model();
    std::vector<Model> personal(fed.hospitals().size(), global);
    for (int round = fed.first_round({{"global", global}, {"personal", personal}}); !fed.done(round); ++round) {
      auto updates = fed.parallel(fed.hospitals(), [&](Hospital& h) {
        const Model& got = fed.send(fed.server(), h, global);  // what arrived (compression.*)
        // v_k stays on the hospital: kept even when the upload below is lost.
        personal[size_t(h.id())] =
            h.train(personal[size_t(h.id())], ProximalTraining(sc.training.local_epochs, lambda, &got.weights)).model;
        Update w = h.train(got, PlainTraining(sc.training.local_epochs));
        w.model = fed.send(h, fed.server(), w.model);
        return w;
      });
      if (!updates.empty())
        global = fed.on_server(weighted_average_flops(updates), [&] { return weighted_average(updates); });
      fed.end_round(round, personal);
    }
  }
};

}  // namespace

std::vector<AlgorithmInfo> ditto_algorithms() {
  return {{.name = "ditto",
           .description = "Ditto (Li et al. 2021): FedAvg's global model plus a personal model per hospital regularised "
                          "towards it",
           .make = [] { return std::make_unique<Ditto>(); },
           .keys = ditto_keys().declarations()}};
}

}  // namespace fedgrid::algorithms

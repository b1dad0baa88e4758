// FedRep. L. Collins, H. Hassani, A. Mokhtari, S. Shakkottai, "Exploiting Shared
// Representations for Personalized Federated Learning", ICML 2021 (Algorithm 1).
//
// The body (every layer but the classifier) is shared, the head (the classifier) stays on each
// hospital. Each round a selected hospital loads the received body under its own head, trains
// the head for `head_epochs` with the body frozen, then the body for training.local_epochs with
// the head frozen, and sends the body back; the server averages bodies (sample-weighted).
// Messages carry the body only (exact bytes: its values as float32 plus the model header).
// Hospitals are scored with the averaged body under their own head. Charged: a head epoch as
// a forward pass plus the head's backward, a body epoch as a full training pass.
// Under faults a hospital whose round is lost keeps its head; the body is the average of what
// arrived.
#include "algorithms/aggregation.hpp"
#include "algorithms/fedrep/representation_training.hpp"
#include "algorithms/registry.hpp"
#include "sim/engine/federation.hpp"
#include "sim/scenario/key_set.hpp"

namespace fedgrid::algorithms {
namespace {

struct FedRepSettings {
  int head_epochs = 10;
};

const KeySet<FedRepSettings>& fedrep_keys() {
  static const auto keys = KeySet<FedRepSettings>().add(
      "head_epochs", &FedRepSettings::head_epochs, "10",
      "fedrep: epochs of head training (body frozen) before the body's training.local_epochs", {.min = 0});
  return keys;
}

class FedRep : public Algorithm {
 public:
  void run(Federation& fed) override {
    const Scenario& sc = fed.scenario();
    const int head_epochs = fedrep_keys().read(sc).head_epochs;
    const Model init = fed.init_model();
    int64_t head_offset = 0, head_size = 0;
    head_of(init.spec, head_offset, head_size);
    const int64_t body_bytes = (init.values() - head_size) * 4 + models::kPayloadHeaderBytes;
    std::vector<Model> personal(fed.hospitals().size(), init);
    for (int round = fed.first_round({{"personal", personal}}); !fed.done(round); ++round) {
      auto updates = fed.parallel(fed.hospitals(), [&](Hospital& h) {
        fed.send_bytes(fed.server(), h, body_bytes);
        Update u = h.train(personal[size_t(h.id())], RepresentationTraining(head_epochs, sc.training.local_epochs));
        fed.send_bytes(h, fed.server(), body_bytes);
        return u;
      });
      if (updates.empty()) {
        fed.end_round(round, personal);
        continue;
      }
      for (const Update& u : updates) {  // the trained head stays
        auto& mine = personal[size_t(u.hospital)].weights;
        if (!u.model.holds_state()) continue;
        std::copy(u.model.weights.begin() + head_offset, u.model.weights.begin() + head_offset + head_size,
                  mine.begin() + head_offset);
      }
      const Model body = fed.on_server(weighted_average_flops(updates), [&] { return weighted_average(updates); });
      for (Model& m : personal) {
        if (!body.holds_state()) continue;
        for (int64_t k = 0; k < int64_t(m.weights.size()); ++k)
          if (k < head_offset || k >= head_offset + head_size) m.weights[size_t(k)] = body.weights[size_t(k)];
      }
      fed.end_round(round, personal);
    }
  }
};

}  // namespace

std::vector<AlgorithmInfo> fedrep_algorithms() {
  return {{.name = "fedrep",
           .description = "FedRep (Collins et al. 2021): shared body averaged, personal heads trained first with the "
                          "body frozen",
           .make = [] { return std::make_unique<FedRep>(); },
           .counts_epochs = true,
           .keys = fedrep_keys().declarations()}};
}

}  // namespace fedgrid::algorithms

// FedBN. X. Li, M. Jiang, X. Zhang, M. Kamp, Q. Dou, "FedBN: Federated Learning on Non-IID
// Features via Local Batch Normalization", ICLR 2021.
//
// FedAvg in which every batch-norm layer (scale, shift and running statistics) stays at its
// hospital: only the other values travel and are averaged, so each hospital keeps a model of its
// own (scored on its own test split, and on every split as the global test). A model without
// batch norm makes FedBN FedAvg.
//
// Under faults (faults.*): the shared values are averaged over the updates that arrived (none:
// they stay); a hospital whose update was lost keeps its last local model.
#include "algorithms/aggregation.hpp"
#include "algorithms/fedavg.hpp"
#include "algorithms/registry.hpp"
#include "sim/engine/federation.hpp"
#include "sim/jobs/training/plain_training.hpp"

namespace fedgrid::algorithms {
namespace {

class FedBn : public Algorithm {
 public:
  void run(Federation& fed) override {
    const auto& sc = fed.scenario();
    const FedAvgSettings settings = fedavg_keys().read(sc);
    Model global = fed.init_model();
    shared_ = shared_values(global.spec);
    int64_t shared_count = 0;
    for (bool s : shared_) shared_count += s;
    const int64_t bytes = shared_count * 4 + models::kPayloadHeaderBytes;  // the message carries only these
    std::vector<Model> local(fed.hospitals().size(), global);
    for (int round = fed.first_round({{"global", global}, {"local", local}}); !fed.done(round); ++round) {
      auto updates = fed.parallel(fed.select(settings.fraction, round), [&](Hospital& h) {
        fed.send_bytes(fed.server(), h, bytes);
        Update u = h.train(with_shared(local[size_t(h.id())], global), PlainTraining(sc.training.local_epochs));
        fed.send_bytes(h, fed.server(), bytes);
        return u;
      });
      if (!updates.empty())
        global = fed.on_server(weighted_average_flops(updates), [&] { return weighted_average(updates); });
      for (auto& u : updates) local[size_t(u.hospital)] = std::move(u.model);
      fed.end_round(round, local);
    }
  }

 private:
  // Per state value: true where it is not a batch norm's (models::state_layout order).
  static std::vector<bool> shared_values(const models::ModelSpec& spec) {
    std::vector<bool> shared;
    for (const auto& t : models::state_layout(spec)) shared.insert(shared.end(), size_t(t.numel()), !t.batchnorm);
    return shared;
  }
  // The hospital's own model with the averaged values in place of its shared ones.
  Model with_shared(const Model& own, const Model& global) const {
    if (!own.holds_state()) return own;  // timing-only
    Model out = own;
    for (size_t i = 0; i < shared_.size(); ++i)
      if (shared_[i]) out.weights[i] = global.weights[i];
    return out;
  }

  std::vector<bool> shared_;
};

}  // namespace

std::vector<AlgorithmInfo> fedbn_algorithms() {
  return {{.name = "fedbn",
           .description = "FedBN (Li et al. 2021): FedAvg that leaves batch-norm layers local",
           .make = [] { return std::make_unique<FedBn>(); },
           .keys = fedavg_keys().declarations(),
           .traits = {.selects_fraction = true}}};
}

}  // namespace fedgrid::algorithms

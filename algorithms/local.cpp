// Local training: every hospital trains its own model on its own data and never
// communicates. The lower bound every federated method must beat. Evaluated per hospital on
// its own test split. Under faults (faults.*), a hospital whose round was lost keeps the model
// it had.
#include "algorithms/registry.hpp"
#include "sim/engine/federation.hpp"
#include "sim/jobs/training/plain_training.hpp"

namespace fedgrid::algorithms {
namespace {

class Local : public Algorithm {
 public:
  void run(Federation& fed) override {
    const auto& sc = fed.scenario();
    std::vector<Model> models;  // by hospital id, each of its own architecture
    for (Hospital* h : fed.hospitals()) models.push_back(fed.init_hospital_model(*h));
    for (int round = fed.first_round({{"models", models}}); !fed.done(round); ++round) {
      auto updates = fed.parallel(fed.hospitals(), [&](Hospital& h) {
        return h.train(models[size_t(h.id())], PlainTraining(sc.training.local_epochs));
      });
      for (auto& u : updates) models[size_t(u.hospital)] = std::move(u.model);
      fed.end_round(round, models);
    }
  }
};

}  // namespace

std::vector<AlgorithmInfo> local_algorithms() {
  return {{.name = "local",
           .description = "Local: every hospital trains its own model alone, no communication (lower bound)",
           .make = [] { return std::make_unique<Local>(); },
           .models = AlgorithmInfo::Models::PerHospital}};
}

}  // namespace fedgrid::algorithms

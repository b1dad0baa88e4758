// Centralized training (NoFed): the hospitals' raw training data is pooled at the server
// once, and the server trains one model on the pool. The upper bound on accuracy; its cost
// is the upload of raw data (uint8 pixels + label) and training at the server's speed.
#include "algorithms/registry.hpp"
#include "sim/engine/federation.hpp"
#include "sim/jobs/plain_training.hpp"

namespace fedgrid::algorithms {
namespace {

class Centralized : public Algorithm {
 public:
  void run(Federation& fed) override {
    const auto& sc = fed.scenario();
    Model model = fed.init_model();
    const TrainingSamples pool = fed.pooled_train_samples();
    for (int round = 1; !fed.done(round); ++round) {
      if (round == 1)
        fed.parallel(fed.hospitals(), [&](Hospital& h) {
          fed.send_bytes(h, fed.server(), h.raw_data_bytes());
          return 0;
        });
      model = fed.train_on_server(model, pool, PlainTraining(sc.training.local_epochs)).model;
      fed.end_round(round, model);
    }
  }
};

}  // namespace

std::vector<AlgorithmInfo> centralized_algorithms() {
  return {{"centralized", "Centralized: raw data pooled at the server, trained there (upper bound)",
           [] { return std::make_unique<Centralized>(); }}};
}

}  // namespace fedgrid::algorithms

// Centralized training (NoFed): the hospitals' raw training data is pooled at the server
// once, and the server trains one model on the pool. The upper bound on accuracy; its cost
// is the upload of raw data (uint8 pixels + label) and training at the server's speed.
// Under faults (faults.*), the pool holds the data of the hospitals whose upload arrived in
// round 1; data that did not arrive stays out (nothing is sent again).
#include <algorithm>

#include "algorithms/registry.hpp"
#include "sim/engine/federation.hpp"
#include "sim/jobs/training/plain_training.hpp"

namespace fedgrid::algorithms {
namespace {

// The training samples of hospitals `ids`, in one sorted pool.
TrainingSamples pooled_train_samples(Federation& fed, const std::vector<int>& ids) {
  TrainingSamples pool;
  const auto hospitals = fed.hospitals();
  for (int id : ids) {
    const Hospital* h = hospitals[size_t(id)];
    pool.indices.insert(pool.indices.end(), h->split().train.begin(), h->split().train.end());
    pool.count += h->train_samples();
  }
  std::sort(pool.indices.begin(), pool.indices.end());
  return pool;
}

// Bytes of a hospital's raw training data: uint8 pixels plus a 1-byte label per sample.
int64_t raw_data_bytes(const Hospital& h, const models::ModelSpec& images) {
  return h.train_samples() * (int64_t(images.channels) * images.height * images.width + 1);
}

class Centralized : public Algorithm {
 public:
  void run(Federation& fed) override {
    const auto& sc = fed.scenario();
    Model model = fed.init_model();
    const auto& shape = model.spec;  // the images' shape
    std::vector<int> pooled;  // the hospitals whose data reached the server
    for (const Hospital* h : fed.hospitals()) pooled.push_back(h->id());
    const int first = fed.first_round({{"model", model}, {"pooled", pooled}});
    TrainingSamples pool = pooled_train_samples(fed, pooled);
    for (int round = first; !fed.done(round); ++round) {
      if (round == 1) {
        pooled = fed.parallel(fed.hospitals(), [&](Hospital& h) {
          fed.send_bytes(h, fed.server(), raw_data_bytes(h, shape));
          return h.id();
        });
        pool = pooled_train_samples(fed, pooled);
      }
      model = fed.train_on_server(model, pool, PlainTraining(sc.training.local_epochs)).model;
      fed.end_round(round, model);
    }
  }
};

}  // namespace

std::vector<AlgorithmInfo> centralized_algorithms() {
  return {{.name = "centralized",
           .description = "Centralized: raw data pooled at the server, trained there (upper bound)",
           .make = [] { return std::make_unique<Centralized>(); }}};
}

}  // namespace fedgrid::algorithms

// FedAvg. H. B. McMahan, E. Moore, D. Ramage, S. Hampson, B. Agüera y Arcas,
// "Communication-Efficient Learning of Deep Networks from Decentralized Data", AISTATS 2017.
//
// Each round a fraction C of the hospitals is drawn; in parallel each downloads the global
// model, trains E local epochs, uploads; the server takes the sample-weighted average.
#include "algorithms/aggregation.hpp"
#include "algorithms/registry.hpp"
#include "sim/federation.hpp"

namespace fedgrid::algorithms {
namespace {

class FedAvg : public Algorithm {
 public:
  void run(Federation& fed) override {
    const auto& sc = fed.scenario();
    Model global = fed.init_model();
    for (int round = 1; !fed.done(round); ++round) {
      auto updates = fed.parallel(fed.select(sc.algorithm.fraction, round), [&](Hospital& h) {
        fed.send(fed.server(), h, global);
        Update u = h.train(global, sc.training.local_epochs);
        fed.send(h, fed.server(), u.model);
        return u;
      });
      global = fed.on_server(weighted_average_flops(updates), [&] { return weighted_average(updates); });
      fed.end_round(round, global);
    }
  }
};

}  // namespace

std::unique_ptr<Algorithm> make_fedavg() { return std::make_unique<FedAvg>(); }

}  // namespace fedgrid::algorithms

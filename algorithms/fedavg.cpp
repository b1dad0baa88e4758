// FedAvg. H. B. McMahan, E. Moore, D. Ramage, S. Hampson, B. Agüera y Arcas,
// "Communication-Efficient Learning of Deep Networks from Decentralized Data", AISTATS 2017.
//
// Each round a fraction C of the hospitals is drawn; in parallel each downloads the global
// model, trains E local epochs, uploads; the server takes the sample-weighted average.
//
// FedProx. T. Li, A. K. Sahu, M. Zaheer, M. Sanjabi, A. Talwalkar, V. Smith, "Federated
// Optimization in Heterogeneous Networks", MLSys 2020: the same rounds, with the local
// objective F_k(w) + (mu/2)||w - w^t||^2 anchored at the received global model w^t (once per
// round, not per local epoch as in UniFed's code). Same messages, same bytes.
#include "algorithms/aggregation.hpp"
#include "algorithms/registry.hpp"
#include "sim/federation.hpp"

namespace fedgrid::algorithms {
namespace {

class FedAvg : public Algorithm {
 public:
  explicit FedAvg(bool proximal) : proximal_(proximal) {}
  void run(Federation& fed) override {
    const auto& sc = fed.scenario();
    Model global = fed.init_model();
    for (int round = 1; !fed.done(round); ++round) {
      auto updates = fed.parallel(fed.select(sc.algorithm.fraction, round), [&](Hospital& h) {
        fed.send(fed.server(), h, global);
        Update u = h.train(global, sc.training.local_epochs, proximal_ ? sc.algorithm.mu : 0.0);
        fed.send(h, fed.server(), u.model);
        return u;
      });
      global = fed.on_server(weighted_average_flops(updates), [&] { return weighted_average(updates); });
      fed.end_round(round, global);
    }
  }

 private:
  bool proximal_;
};

}  // namespace

std::unique_ptr<Algorithm> make_fedavg() { return std::make_unique<FedAvg>(false); }
std::unique_ptr<Algorithm> make_fedprox() { return std::make_unique<FedAvg>(true); }

}  // namespace fedgrid::algorithms

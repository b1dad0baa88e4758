// FedProx. T. Li, A. K. Sahu, M. Zaheer, M. Sanjabi, A. Talwalkar, V. Smith, "Federated
// Optimization in Heterogeneous Networks", MLSys 2020.
//
// FedAvg's rounds with one change, the local objective: F_k(w) + (mu/2)||w - w^t||^2, anchored
// at the received global model w^t (once per round, not per local epoch as in UniFed's code).
// Same messages, same bytes; the proximal arithmetic is not charged (a few FLOPs per value
// per step against the network's thousands).
// Under faults (faults.*), FedAvg's rounds: the average of the updates that arrived (fedavg.cpp).
#include <vector>

#include "algorithms/fedavg.hpp"
#include "algorithms/proximal.hpp"

namespace fedgrid::algorithms {
namespace {

struct FedProxSettings {
  double mu = 0.01;
};
const KeySet<FedProxSettings>& fedprox_keys() {
  static const auto keys = KeySet<FedProxSettings>().add(
      "mu", &FedProxSettings::mu, "0.01", "fedprox: weight of the proximal term (mu/2)||w - w_global||^2", {.min = 0});
  return keys;
}

class FedProx : public FedAvg {
 public:
  void run(Federation& fed) override {
    mu_ = fedprox_keys().read(fed.scenario()).mu;  // once per run, not per hospital and round
    FedAvg::run(fed);
  }

 protected:
  Update train_locally(Federation& fed, Hospital& h, const Model& global) override {
    if (mu_ == 0) return FedAvg::train_locally(fed, h, global);
    return h.train_later(global, ProximalTraining(fed.scenario().training.local_epochs, mu_));
  }

 private:
  double mu_ = 0;
};

}  // namespace

std::vector<AlgorithmInfo> fedprox_algorithms() {
  auto keys = fedavg_keys().declarations();
  for (auto& k : fedprox_keys().declarations()) keys.push_back(k);
  return {{.name = "fedprox",
           .description = "FedProx (Li et al. 2020): FedAvg with the proximal term (mu/2)||w - w_global||^2 in local "
                          "training",
           .make = [] { return std::make_unique<FedProx>(); },
           .keys = keys,
           .traits = {.selects_fraction = true}}};
}

}  // namespace fedgrid::algorithms

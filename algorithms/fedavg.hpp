#pragma once
// FedAvg's rounds, for the variants that change one step of them (FedProx: the local work).
#include "algorithms/registry.hpp"
#include "sim/engine/federation.hpp"
#include "sim/scenario/key_set.hpp"

namespace fedgrid::algorithms {

// algorithm.* keys of FedAvg (and of the variants that reuse its rounds).
struct FedAvgSettings {
  double fraction = 1;  // C: share of hospitals drawn each round
};
const KeySet<FedAvgSettings>& fedavg_keys();

class FedAvg : public Algorithm {
 public:
  void run(Federation& fed) override;

 protected:
  // One hospital's local training of `global` this round (FedProx anchors it at `global`).
  // Its weights go only into server_update's average, so the job runs as the average reaches
  // it (train_later): a round holds a few trained models, not one per hospital.
  virtual Update train_locally(Federation& fed, Hospital& h, const Model& global);
  // The server's step from the round's updates to the next global model, charged on the
  // server: the sample-weighted average (adaptive server optimisers step from it instead).
  virtual Model server_update(Federation& fed, const Model& global, const std::vector<Update>& updates);
  // What a checkpoint keeps between rounds: the global model (a server optimiser adds its moments).
  virtual std::vector<Kept> kept_state(Model& global);
};

}  // namespace fedgrid::algorithms

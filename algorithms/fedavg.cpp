// FedAvg. H. B. McMahan, E. Moore, D. Ramage, S. Hampson, B. Agüera y Arcas,
// "Communication-Efficient Learning of Deep Networks from Decentralized Data", AISTATS 2017.
//
// Each round a fraction C of the hospitals is drawn; in parallel each downloads the global
// model, trains E local epochs, uploads; the server takes the sample-weighted average.
//
// Under faults (faults.*): the average of the updates that arrived; in a round where none did,
// the global model stays as it was. FedProx and FedOpt (fedprox.cpp, fedopt.cpp) share this.
#include "algorithms/fedavg.hpp"

#include "algorithms/aggregation.hpp"
#include "sim/jobs/training/plain_training.hpp"

namespace fedgrid::algorithms {

const KeySet<FedAvgSettings>& fedavg_keys() {
  static const auto keys = KeySet<FedAvgSettings>().add(
      "fraction", &FedAvgSettings::fraction, "1.0", "fedavg: share of hospitals selected each round",
      {.min = 0, .max = 1, .min_exclusive = true});
  return keys;
}

void FedAvg::run(Federation& fed) {
  const FedAvgSettings settings = fedavg_keys().read(fed.scenario());
  Model global = fed.init_model();
  for (int round = fed.first_round(kept_state(global)); !fed.done(round); ++round) {
    auto updates = fed.parallel(fed.select(settings.fraction, round), [&](Hospital& h) {
      Update u = train_locally(fed, h, fed.send(fed.server(), h, global));  // trains on what arrived
      u.model = fed.send(h, fed.server(), u.model);
      return u;
    });
    if (!updates.empty()) global = server_update(fed, global, updates);
    fed.end_round(round, global);
  }
}

Model FedAvg::server_update(Federation& fed, const Model&, const std::vector<Update>& updates) {
  return fed.on_server(weighted_average_flops(updates), [&] { return weighted_average(updates); });
}

std::vector<Kept> FedAvg::kept_state(Model& global) { return {{"global", global}}; }

Update FedAvg::train_locally(Federation& fed, Hospital& h, const Model& global) {
  return h.train_later(global, PlainTraining(fed.scenario().training.local_epochs));
}

std::vector<AlgorithmInfo> fedavg_algorithms() {
  return {{.name = "fedavg",
           .description = "FedAvg (McMahan et al. 2017): parallel rounds, sample-weighted averaging, client fraction",
           .make = [] { return std::make_unique<FedAvg>(); },
           .keys = fedavg_keys().declarations(),
           .traits = {.selects_fraction = true}}};
}

}  // namespace fedgrid::algorithms

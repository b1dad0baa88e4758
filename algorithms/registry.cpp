#include "algorithms/registry.hpp"

namespace fedgrid::algorithms {

const std::vector<AlgorithmInfo>& registry() {
  static const std::vector<AlgorithmInfo> all = {
      {"fedavg", "FedAvg (McMahan et al. 2017): parallel rounds, sample-weighted averaging, client fraction", make_fedavg},
      {"fedprox", "FedProx (Li et al. 2020): FedAvg with the proximal term (mu/2)||w - w_global||^2 in local training", make_fedprox},
      {"unifed", "UniFed (Hassani & Rekik 2024): loss-slope ordered relay with validation-stopped visits, mixed with a server-trained model", make_unifed, AlgorithmInfo::Models::Shared, true},
      {"fedseq", "FedSeq: one model relayed through the server, hospital by hospital", make_fedseq},
      {"local", "Local: every hospital trains its own model alone, no communication (lower bound)", make_local, AlgorithmInfo::Models::PerHospital},
      {"dynamicfl", "DynamicFL (Zhang et al. 2025): each tier grows its budget of convs into diverse-branch blocks, trains, folds back exactly; plain-model averaging", make_dynamicfl, AlgorithmInfo::Models::Shared, true},
      {"heterofl", "HeteroFL (Diao et al. 2021): each tier trains the first ceil(r*K) channels of the wide model (model.<tier>), per-value averaging", make_heterofl, AlgorithmInfo::Models::PerTier},
      {"fedrolex", "FedRolex (Alam et al. 2022): HeteroFL with a channel window that rolls by one every round", make_fedrolex, AlgorithmInfo::Models::PerTier},
      {"feddf", "FedDF (Lin et al. 2020): per-architecture FedAvg, then the ensemble of all client models distilled into each on the server's unlabelled data", make_feddf, AlgorithmInfo::Models::PerTier},
      {"fedskd", "FedSKD (Weng et al. 2025): serverless; each round a permutation sends copies of hospitals' models peer to peer, each trains its own with the received one by similarity distillation", make_fedskd, AlgorithmInfo::Models::PerHospital},
      {"fedcross", "FedCross (Xu et al.): one model relayed hospital to hospital peer to peer, no server", make_fedcross},
      {"fedbn", "FedBN (Li et al. 2021): FedAvg that leaves batch-norm layers local", make_fedbn},
      {"centralized", "Centralized: raw data pooled at the server, trained there (upper bound)", make_centralized},
  };
  return all;
}

const AlgorithmInfo* find_algorithm(const std::string& name) {
  for (const auto& a : registry())
    if (a.name == name) return &a;
  return nullptr;
}

std::string algorithm_names() {
  std::string s;
  for (const auto& a : registry()) s += (s.empty() ? "" : ", ") + a.name;
  return s;
}

}  // namespace fedgrid::algorithms

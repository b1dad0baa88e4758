// FedAMP. Y. Huang, L. Chu, Z. Zhou, L. Wang, J. Liu, J. Pei, Y. Zhang, "Personalized
// Cross-Silo Federated Learning on Non-IID Data", AAAI 2021.
//
// Attentive message passing: every hospital keeps its own model w_i. Each round the server
// builds a personalised cloud model for every hospital,
//   u_i = xi_ii w_i + sum_{j != i} xi_ij w_j,  xi_ij = alpha_k A'(||w_i - w_j||^2),
//   xi_ii = 1 - sum_{j != i} xi_ij,  A(x) = 1 - exp(-x / sigma), so A'(x) = exp(-x / sigma) / sigma,
// and sends u_i to hospital i alone (unicast, a different model each); the hospital trains
// F_i(w) + (lambda / (2 alpha_k)) ||w - u_i||^2 from u_i (FedProx's proximal work, anchored at
// u_i) and sends w_i back. Hospitals are scored with their own w_i.
// Charged on the server: the pairwise squared distances (3 FLOPs per value per pair) and the
// combinations (2 per value per term). alpha_k is kept constant over rounds (the paper allows a
// schedule). Under faults a hospital whose update is lost keeps its last w_i.
#include <cmath>

#include "algorithms/proximal.hpp"
#include "algorithms/registry.hpp"
#include "sim/engine/federation.hpp"
#include "sim/scenario/key_set.hpp"

namespace fedgrid::algorithms {
namespace {

struct FedAmpSettings {
  double alpha_k = 1, sigma = 1, lambda = 1;
};

const KeySet<FedAmpSettings>& fedamp_keys() {
  using S = FedAmpSettings;
  static const auto keys =
      KeySet<S>()
          .add("alpha_k", &S::alpha_k, "1", "fedamp: alpha_k, weight of the attention on other hospitals' models",
               {.min = 0, .min_exclusive = true})
          .add("sigma", &S::sigma, "1", "fedamp: sigma of the attention A(x) = 1 - exp(-x / sigma)",
               {.min = 0, .min_exclusive = true})
          .add("lambda", &S::lambda, "1", "fedamp: lambda of the local term (lambda / (2 alpha_k)) ||w - u_i||^2",
               {.min = 0});
  return keys;
}

class FedAmp : public Algorithm {
 public:
  void run(Federation& fed) override {
    const Scenario& sc = fed.scenario();
    const FedAmpSettings a = fedamp_keys().read(sc);
    const std::vector<Hospital*> all = fed.hospitals();
    const size_t n = all.size();
    std::vector<Model> personal(n, fed.init_model());
    for (int round = fed.first_round({{"personal", personal}}); !fed.done(round); ++round) {
      const std::vector<Model> cloud = fed.on_server(server_flops(personal), [&] { return cloud_models(personal, a); });
      auto updates = fed.parallel(all, [&](Hospital& h) {
        const Model& u = fed.send(fed.server(), h, cloud[size_t(h.id())]);  // what arrived
        Update w = h.train(u, ProximalTraining(sc.training.local_epochs, a.lambda / a.alpha_k));
        w.model = fed.send(h, fed.server(), w.model);
        return w;
      });
      for (Update& u : updates) personal[size_t(u.hospital)] = std::move(u.model);
      fed.end_round(round, personal);
    }
  }

 private:
  static double server_flops(const std::vector<Model>& personal) {
    const double n = double(personal.size()), values = double(personal.front().values());
    return 3.0 * values * n * (n - 1) / 2 + 2.0 * values * n * n;
  }

  // u_i for every hospital, summed in hospital order in double precision.
  static std::vector<Model> cloud_models(const std::vector<Model>& w, const FedAmpSettings& a) {
    const size_t n = w.size();
    if (!w.front().holds_state()) return w;  // timing-only: shapes only
    std::vector<std::vector<double>> dist(n, std::vector<double>(n, 0.0));
    for (size_t i = 0; i < n; ++i)
      for (size_t j = i + 1; j < n; ++j) {
        double s = 0;
        for (size_t k = 0; k < w[i].weights.size(); ++k) {
          const double diff = double(w[i].weights[k]) - double(w[j].weights[k]);
          s += diff * diff;
        }
        dist[i][j] = dist[j][i] = s;
      }
    std::vector<Model> out;
    for (size_t i = 0; i < n; ++i) {
      std::vector<double> xi(n, 0.0);
      double others = 0;
      for (size_t j = 0; j < n; ++j)
        if (j != i) others += xi[j] = a.alpha_k * std::exp(-dist[i][j] / a.sigma) / a.sigma;
      xi[i] = 1 - others;
      std::vector<double> sum(w[i].weights.size(), 0.0);
      for (size_t j = 0; j < n; ++j)
        for (size_t k = 0; k < sum.size(); ++k) sum[k] += xi[j] * double(w[j].weights[k]);
      Model u = w[i];
      for (size_t k = 0; k < sum.size(); ++k) u.weights[k] = float(sum[k]);
      out.push_back(std::move(u));
    }
    return out;
  }
};

}  // namespace

std::vector<AlgorithmInfo> fedamp_algorithms() {
  return {{.name = "fedamp",
           .description = "FedAMP (Huang et al. 2021): personalised cloud models by attentive message passing, "
                          "proximal local training, personal models",
           .make = [] { return std::make_unique<FedAmp>(); },
           .keys = fedamp_keys().declarations()}};
}

}  // namespace fedgrid::algorithms

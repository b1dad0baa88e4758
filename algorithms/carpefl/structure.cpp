// CarPe-FL's structure refresh on the server (Shin et al. 2026, Secs. 4.2-4.4).
//
// Choices where the paper is silent: the reliability weight omega_i is the hospital's training
// sample count; the FLOPs charged are those of the work done: NOTEARS's evaluations
// (notears_eval_flops each, notears.hpp), d^2 per SHD pair, N^3 for the clustering's linkage
// scans, and per cluster d^2 per member for the confidences and d log2 d for the order. The
// paper names hierarchical clustering on the SHD matrix but neither the linkage nor the cut:
// average linkage (clustering::average_linkage), because SHD is not Euclidean and Ward's
// criterion assumes it is; the cut is a fixed cluster count or, by default, an SHD threshold.
#include "algorithms/carpefl/structure.hpp"

#include <cmath>

#include "algorithms/clustering/hierarchical.hpp"
#include "models/model_spec.hpp"

namespace fedgrid::carpefl {

Structure refresh_structure(const std::vector<std::optional<Eigen::MatrixXd>>& covariance,
                            const std::vector<Eigen::MatrixXd>& previous_w, const std::vector<double>& weights,
                            const StructureSettings& settings) {
  const size_t n = covariance.size();
  Structure s;
  double d = 0;
  for (size_t i = 0; i < n; ++i) {
    if (covariance[i]) {
      const NotearsFit fit = fit_notears(*covariance[i], settings.notears);
      s.w.push_back(fit.w);
      s.flops += fit.flops;
      ++s.notears_fits;
    } else {
      s.w.push_back(previous_w[i]);
    }
    s.graphs.push_back(proxy_graph(s.w.back(), settings.tau_w));
    d = double(s.w.back().rows());
  }
  s.shd.assign(n, std::vector<double>(n, 0.0));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j)
      s.shd[i][j] = s.shd[j][i] = double(structural_hamming_distance(s.graphs[i].a, s.graphs[j].a));
  s.flops += double(n * (n - 1) / 2) * d * d;
  Eigen::MatrixXd shd(n, n);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) shd(Eigen::Index(i), Eigen::Index(j)) = s.shd[i][j];
  const clustering::Linkage tree = clustering::average_linkage(shd);
  s.cluster = settings.clusters > 0 ? clustering::cut_tree(tree, settings.clusters)
                                    : clustering::cut_above(tree, settings.merge_shd);
  s.flops += double(n) * double(n) * double(n);
  int clusters = 0;
  for (int c : s.cluster) clusters = std::max(clusters, c + 1);
  for (int k = 0; k < clusters; ++k) {
    std::vector<const ProxyGraph*> members;
    std::vector<double> omega;
    for (size_t i = 0; i < n; ++i)
      if (s.cluster[i] == k) members.push_back(&s.graphs[i]), omega.push_back(weights[i]);
    s.backbones.push_back(cluster_backbone(members, omega, settings.tau_c));
    s.flops += double(members.size()) * d * d + d * std::log2(std::max(2.0, d));
  }
  return s;
}

int64_t statistics_bytes(int64_t d) { return models::kPayloadHeaderBytes + 8 + 4 * d + 2 * d * (d + 1); }

int64_t structure_bytes(int64_t d) { return models::kPayloadHeaderBytes + (d * d + 7) / 8 + 2 * 4 * d * d; }

}  // namespace fedgrid::carpefl

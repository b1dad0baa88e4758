#pragma once
// CarPe-FL's server step at a refresh round (Shin et al. 2026, Secs. 4.2-4.4): from every
// hospital's latent covariance, a NOTEARS proxy graph each, the SHD matrix between them,
// hierarchical clusters, and one acyclic backbone per cluster; with the FLOPs it took, which
// the server host is charged. Eigen only, no torch.
#include <cstdint>
#include <optional>
#include <vector>

#include <Eigen/Dense>

#include "algorithms/carpefl/causal_graph.hpp"
#include "algorithms/carpefl/notears.hpp"

namespace fedgrid::carpefl {

struct StructureSettings {
  NotearsOptions notears;
  double tau_w = 0.3;      // adjacency threshold on |W|
  double tau_c = 0.5;      // backbone confidence threshold on cbar
  int clusters = 0;        // fixed cluster count; 0: cut the tree at merge_shd
  double merge_shd = 12;   // clusters merge while their average-linkage SHD is at most this
};

struct Structure {
  std::vector<Eigen::MatrixXd> w;         // each hospital's fitted W
  std::vector<ProxyGraph> graphs;         // each hospital's proxy graph
  std::vector<std::vector<double>> shd;   // hospital x hospital
  std::vector<int> cluster;               // each hospital's cluster, numbered by first member
  std::vector<Backbone> backbones;        // by cluster
  int64_t notears_fits = 0;
  double flops = 0;
};

// `covariance[i]`: hospital i's fresh latent covariance, or empty when none arrived (faults):
// it keeps `previous_w[i]` (a zero matrix before any fit: a graph without edges). `weights`:
// the reliability weights omega_i (training samples).
Structure refresh_structure(const std::vector<std::optional<Eigen::MatrixXd>>& covariance,
                            const std::vector<Eigen::MatrixXd>& previous_w, const std::vector<double>& weights,
                            const StructureSettings& settings);

// Exact bytes of one hospital's statistics message: a header as every model message has
// (models::kPayloadHeaderBytes), n as int64, the mean and the covariance's upper triangle as
// float32.
int64_t statistics_bytes(int64_t d);
// Exact bytes of the structure a refresh round sends each hospital beside its cluster model:
// the header, the backbone as d^2 bits, the cluster confidences cbar and the hospital's own
// edge supports p_i as float32 (its gates start from them).
int64_t structure_bytes(int64_t d);

}  // namespace fedgrid::carpefl

#pragma once
// CarPe-FL's server-side graph algebra (W. Shin, Z. Shen, G. Oh, J. Shin, "Causal
// Representation-Based Personalized Federated Learning with Causal Graph Consensus for Medical
// Imaging", Electronics 15(10) 1983, 2026, Secs. 4.2-4.4): binary proxy graphs and per-edge
// directional confidences from a fitted W, the structural Hamming distance between two
// graphs, and one acyclic backbone per cluster. Eigen only, no torch.
#include <cstdint>
#include <vector>

#include <Eigen/Dense>

namespace fedgrid::carpefl {

using Adjacency = Eigen::Matrix<uint8_t, Eigen::Dynamic, Eigen::Dynamic>;  // A[u][v] = 1: u -> v

// One hospital's proxy graph: A = 1(|W| > tau_w) made acyclic, p(u->v) its support for the
// orientation u -> v, c(u,v) = p(u->v) - p(v->u) the signed directional confidence.
struct ProxyGraph {
  Adjacency a;
  Eigen::MatrixXd p, c;
  std::vector<int> rank;  // topological rank of each node in A (0 = first)
};
ProxyGraph proxy_graph(const Eigen::MatrixXd& w, double tau_w);

// Kahn's order of a DAG, ties broken by the smallest node index; empty when A has a cycle.
std::vector<int> topological_order(const Adjacency& a);
bool is_acyclic(const Adjacency& a);
int64_t edge_count(const Adjacency& a);

// Pairs {u, v} (u < v) whose edge states differ: a missing, an extra and a reversed edge
// count 1 each.
int64_t structural_hamming_distance(const Adjacency& a, const Adjacency& b);

// A cluster's backbone (Sec. 4.4): cbar = reliability-weighted mean of the members' c; the
// node order sorts nodes by their weighted mean topological rank (ties: node index); edge
// u -> v is kept iff cbar(u,v) >= tau_c and u precedes v in that order: acyclic by construction.
struct Backbone {
  Adjacency g;
  Eigen::MatrixXd cbar;    // averaged signed confidence, in [-1, 1]
  std::vector<int> order;  // the aggregated node order
};
// `graphs` and `weights` (the reliability weights omega_i, e.g. sample counts) of one cluster's
// members; tau_c in (0, 1]. Throws std::invalid_argument for an empty cluster or bad weights.
Backbone cluster_backbone(const std::vector<const ProxyGraph*>& graphs, const std::vector<double>& weights, double tau_c);

}  // namespace fedgrid::carpefl

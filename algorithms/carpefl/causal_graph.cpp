// CarPe-FL's proxy graphs, SHD and cluster backbones (Shin et al. 2026, Secs. 4.2-4.4).
//
// The scraped paper lost every formula; reconstructed as follows (each one a choice):
// - A_i[u,v] = 1(|W_i[u,v]| > tau_w). Where the thresholded graph still holds a cycle (h(W)
//   was not driven exactly to 0), the weakest edge (smallest |W|) of a cycle is dropped until
//   none is left, since topological ranks need a DAG.
// - p_i(u->v) = A_i[u,v] |W_i[u,v]| / (|W_i[u,v]| + |W_i[v,u]| + 1e-12), in [0, 1];
//   c_i(u,v) = p_i(u->v) - p_i(v->u), antisymmetric in [-1, 1].
// - pi_i(v): position of v in Kahn's order of A_i, ties broken by the smallest node index.
// - SHD counts unordered pairs whose (A[u,v], A[v,u]) differ (missing, extra, reversed: 1 each).
// - Backbone: cbar_k = sum omega_i c_i / sum omega_i; s_k(v) = sum omega_i pi_i(v) / sum omega_i;
//   order by ascending s_k (ties: node index); G_k[u,v] = 1(cbar_k(u,v) >= tau_c) 1(pos(u) < pos(v)).
#include "algorithms/carpefl/causal_graph.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace fedgrid::carpefl {
namespace {

// A directed cycle of A as a list of edges (u, v), or empty when A is acyclic.
std::vector<std::pair<int, int>> find_cycle(const Adjacency& a) {
  const int d = int(a.rows());
  std::vector<int> state(size_t(d), 0), parent(size_t(d), -1);  // 0 new, 1 on the stack, 2 done
  std::vector<std::pair<int, int>> cycle;
  // Iterative DFS from each node in index order, so the cycle found is deterministic.
  for (int root = 0; root < d && cycle.empty(); ++root) {
    if (state[size_t(root)]) continue;
    std::vector<std::pair<int, int>> stack{{root, 0}};
    state[size_t(root)] = 1;
    while (!stack.empty() && cycle.empty()) {
      auto& [u, next] = stack.back();
      if (next == d) {
        state[size_t(u)] = 2;
        stack.pop_back();
        continue;
      }
      const int v = next++;
      if (!a(u, v)) continue;
      if (state[size_t(v)] == 1) {
        cycle.push_back({u, v});
        for (int x = u; x != v; x = parent[size_t(x)]) cycle.push_back({parent[size_t(x)], x});
      } else if (state[size_t(v)] == 0) {
        state[size_t(v)] = 1;
        parent[size_t(v)] = u;
        stack.push_back({v, 0});
      }
    }
  }
  return cycle;
}

}  // namespace

std::vector<int> topological_order(const Adjacency& a) {
  const int d = int(a.rows());
  std::vector<int> indegree(size_t(d), 0), order;
  for (int u = 0; u < d; ++u)
    for (int v = 0; v < d; ++v) indegree[size_t(v)] += a(u, v) ? 1 : 0;
  std::vector<bool> placed(size_t(d), false);
  for (int step = 0; step < d; ++step) {
    int next = -1;
    for (int v = 0; v < d && next < 0; ++v)
      if (!placed[size_t(v)] && indegree[size_t(v)] == 0) next = v;
    if (next < 0) return {};
    placed[size_t(next)] = true;
    order.push_back(next);
    for (int v = 0; v < d; ++v)
      if (a(next, v)) --indegree[size_t(v)];
  }
  return order;
}

bool is_acyclic(const Adjacency& a) { return a.rows() == 0 || !topological_order(a).empty(); }

int64_t edge_count(const Adjacency& a) { return a.cast<int64_t>().sum(); }

ProxyGraph proxy_graph(const Eigen::MatrixXd& w, double tau_w) {
  const int d = int(w.rows());
  ProxyGraph g;
  g.a = Adjacency::Zero(d, d);
  for (int u = 0; u < d; ++u)
    for (int v = 0; v < d; ++v) g.a(u, v) = u != v && std::abs(w(u, v)) > tau_w;
  for (auto cycle = find_cycle(g.a); !cycle.empty(); cycle = find_cycle(g.a)) {
    auto weakest = std::min_element(cycle.begin(), cycle.end(), [&](const auto& x, const auto& y) {
      return std::abs(w(x.first, x.second)) < std::abs(w(y.first, y.second));
    });
    g.a(weakest->first, weakest->second) = 0;
  }
  g.p = Eigen::MatrixXd::Zero(d, d);
  for (int u = 0; u < d; ++u)
    for (int v = 0; v < d; ++v)
      if (g.a(u, v)) g.p(u, v) = std::abs(w(u, v)) / (std::abs(w(u, v)) + std::abs(w(v, u)) + 1e-12);
  g.c = g.p - g.p.transpose();
  const std::vector<int> order = topological_order(g.a);
  g.rank.assign(size_t(d), 0);
  for (int pos = 0; pos < d; ++pos) g.rank[size_t(order[size_t(pos)])] = pos;
  return g;
}

int64_t structural_hamming_distance(const Adjacency& a, const Adjacency& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols() || a.rows() != a.cols())
    throw std::invalid_argument("SHD needs two square graphs of the same size");
  int64_t shd = 0;
  for (int u = 0; u < a.rows(); ++u)
    for (int v = u + 1; v < a.rows(); ++v) shd += (a(u, v) != b(u, v) || a(v, u) != b(v, u)) ? 1 : 0;
  return shd;
}

Backbone cluster_backbone(const std::vector<const ProxyGraph*>& graphs, const std::vector<double>& weights, double tau_c) {
  if (graphs.empty() || graphs.size() != weights.size())
    throw std::invalid_argument("a backbone needs one weight per member graph and at least one member");
  if (!(tau_c > 0) || tau_c > 1) throw std::invalid_argument("the backbone confidence threshold must be in (0, 1]");
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  if (!(total > 0)) throw std::invalid_argument("a backbone needs a positive total reliability weight");
  const int d = int(graphs.front()->a.rows());
  Backbone b;
  b.cbar = Eigen::MatrixXd::Zero(d, d);
  std::vector<double> score(size_t(d), 0.0);
  for (size_t i = 0; i < graphs.size(); ++i) {
    if (graphs[i]->a.rows() != d) throw std::invalid_argument("backbone members have graphs of different sizes");
    b.cbar += (weights[i] / total) * graphs[i]->c;
    for (int v = 0; v < d; ++v) score[size_t(v)] += weights[i] / total * double(graphs[i]->rank[size_t(v)]);
  }
  b.order.resize(size_t(d));
  std::iota(b.order.begin(), b.order.end(), 0);
  std::stable_sort(b.order.begin(), b.order.end(), [&](int x, int y) { return score[size_t(x)] < score[size_t(y)]; });
  std::vector<int> pos(static_cast<size_t>(d));
  for (int k = 0; k < d; ++k) pos[size_t(b.order[size_t(k)])] = k;
  b.g = Adjacency::Zero(d, d);
  for (int u = 0; u < d; ++u)
    for (int v = 0; v < d; ++v) b.g(u, v) = u != v && b.cbar(u, v) >= tau_c && pos[size_t(u)] < pos[size_t(v)];
  return b;
}

}  // namespace fedgrid::carpefl

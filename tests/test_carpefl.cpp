// CarPe-FL (Shin et al. 2026): the server's causal machinery (NOTEARS, proxy graphs, SHD,
// clustering, backbones) against hand values and a known DAG.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "algorithms/carpefl/causal_graph.hpp"
#include "algorithms/carpefl/notears.hpp"

namespace fedgrid::carpefl {
namespace {

using Eigen::MatrixXd;

Adjacency graph(int d, std::initializer_list<std::pair<int, int>> edges) {
  Adjacency a = Adjacency::Zero(d, d);
  for (auto [u, v] : edges) a(u, v) = 1;
  return a;
}

TEST(CarpeflNotears, AcyclicityOfATwoCycleByHand) {
  // W = [[0, a], [b, 0]]: (W o W)^2 = a^2 b^2 I, so exp(W o W) = cosh(ab) I + sinh(ab)/(ab) W o W:
  // h = 2 cosh(ab) - 2, dh/dW[0,1] = 2b sinh(ab), dh/dW[1,0] = 2a sinh(ab).
  const double a = 0.7, b = -1.3;
  MatrixXd w(2, 2);
  w << 0, a, b, 0;
  const Acyclicity h = acyclicity(w);
  EXPECT_NEAR(h.h, 2 * std::cosh(a * b) - 2, 1e-12);
  EXPECT_NEAR(h.gradient(0, 1), 2 * b * std::sinh(a * b), 1e-12);
  EXPECT_NEAR(h.gradient(1, 0), 2 * a * std::sinh(a * b), 1e-12);
  EXPECT_NEAR(h.gradient(0, 0), 0, 1e-15);
  // A DAG scores exactly 0.
  MatrixXd dag(3, 3);
  dag << 0, 1.5, -2, 0, 0, 0.3, 0, 0, 0;
  EXPECT_NEAR(acyclicity(dag).h, 0, 1e-12);
}

TEST(CarpeflNotears, AcyclicityGradientMatchesFiniteDifferences) {
  std::mt19937_64 gen(5);
  std::normal_distribution<double> normal(0, 0.4);
  MatrixXd w(5, 5);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) w(i, j) = i == j ? 0 : normal(gen);
  const Acyclicity h = acyclicity(w);
  const double eps = 1e-6;
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) {
      MatrixXd up = w, down = w;
      up(i, j) += eps, down(i, j) -= eps;
      const double numeric = (acyclicity(up).h - acyclicity(down).h) / (2 * eps);
      EXPECT_NEAR(h.gradient(i, j), numeric, 1e-6 * std::max(1.0, std::abs(numeric))) << i << "," << j;
    }
}

// A linear Gaussian SEM over a known DAG: x_v = sum_u B[u,v] x_u + e_v, e ~ N(0, 1), sampled
// in topological order with a fixed seed; the sample covariance (divisor n) of n draws.
MatrixXd sem_covariance(const MatrixXd& b, int n, uint64_t seed) {
  const int d = int(b.rows());
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> noise(0, 1);
  MatrixXd x(n, d);
  for (int s = 0; s < n; ++s)
    for (int v = 0; v < d; ++v) {  // nodes are numbered in a topological order
      double value = noise(gen);
      for (int u = 0; u < v; ++u) value += b(u, v) * x(s, u);
      x(s, v) = value;
    }
  const MatrixXd centred = x.rowwise() - x.colwise().mean();
  return centred.transpose() * centred / double(n);
}

TEST(CarpeflNotears, RecoversAKnownEightNodeDag) {
  // 8 nodes, 9 edges, weights of either sign in [0.6, 1.8].
  const int d = 8;
  MatrixXd b = MatrixXd::Zero(d, d);
  b(0, 2) = 1.2, b(1, 2) = -0.9, b(2, 3) = 1.5, b(0, 4) = -1.1, b(3, 5) = 0.8;
  b(4, 5) = 1.8, b(1, 6) = 0.6, b(5, 7) = -1.3, b(6, 7) = 1.0;
  Adjacency truth = Adjacency::Zero(d, d);
  for (int u = 0; u < d; ++u)
    for (int v = 0; v < d; ++v) truth(u, v) = b(u, v) != 0;
  // Raw covariance (equal noise variances), NOTEARS's own setting; threshold 0.3 as its code.
  const NotearsFit fit = fit_notears(sem_covariance(b, 5000, 42), {.standardize = false});
  EXPECT_LE(fit.h, 1e-8);
  const ProxyGraph g = proxy_graph(fit.w, 0.3);
  EXPECT_TRUE(is_acyclic(g.a));
  const int64_t shd = structural_hamming_distance(g.a, truth);
  RecordProperty("notears_shd", int(shd));
  std::printf("NOTEARS on the 8-node SEM: SHD %lld, %lld edges, %d outer iterations, %lld evaluations\n",
              (long long)shd, (long long)edge_count(g.a), fit.outer, (long long)fit.evaluations);
  EXPECT_LE(shd, 1);
  EXPECT_GT(fit.flops, 0);
}

TEST(CarpeflNotears, RejectsABadCovariance) {
  MatrixXd s(2, 3);
  s.setZero();
  EXPECT_THROW(fit_notears(s), std::invalid_argument);
  MatrixXd asym(2, 2);
  asym << 1, 0.5, 0.1, 1;
  EXPECT_THROW(fit_notears(asym), std::invalid_argument);
}

TEST(CarpeflGraphs, StructuralHammingDistanceByHand) {
  const Adjacency a = graph(4, {{0, 1}, {1, 2}, {2, 3}});
  EXPECT_EQ(structural_hamming_distance(a, a), 0);
  EXPECT_EQ(structural_hamming_distance(a, graph(4, {{1, 0}, {1, 2}, {2, 3}})), 1);  // reversed
  EXPECT_EQ(structural_hamming_distance(a, graph(4, {{0, 1}, {1, 2}})), 1);          // missing
  EXPECT_EQ(structural_hamming_distance(a, graph(4, {{0, 1}, {1, 2}, {2, 3}, {0, 3}})), 1);  // extra
  EXPECT_EQ(structural_hamming_distance(a, graph(4, {{1, 0}, {0, 2}})), 4);
  EXPECT_EQ(structural_hamming_distance(a, graph(4, {})), 3);
}

TEST(CarpeflGraphs, ProxyGraphConfidencesAndCycleBreaking) {
  MatrixXd w = MatrixXd::Zero(3, 3);
  w(0, 1) = 0.9, w(1, 0) = 0.1, w(1, 2) = 0.5, w(2, 0) = 0.4;  // 0->1->2->0 above 0.3: a cycle
  const ProxyGraph g = proxy_graph(w, 0.3);
  EXPECT_TRUE(is_acyclic(g.a));
  EXPECT_EQ(g.a(2, 0), 0);  // the weakest edge of the cycle goes
  EXPECT_EQ(g.a(0, 1), 1);
  EXPECT_EQ(g.a(1, 2), 1);
  EXPECT_NEAR(g.p(0, 1), 0.9 / 1.0, 1e-9);
  EXPECT_NEAR(g.c(0, 1), 0.9, 1e-9);
  EXPECT_NEAR(g.c(1, 0), -0.9, 1e-9);
  EXPECT_EQ(g.rank, (std::vector<int>{0, 1, 2}));
}

TEST(CarpeflGraphs, BackboneKeepsConfidentEdgesInTheAggregatedOrder) {
  // Two members: 0->1->2 (weight 3) and 1->0, 1->2 (weight 1).
  MatrixXd w1 = MatrixXd::Zero(3, 3), w2 = MatrixXd::Zero(3, 3);
  w1(0, 1) = 1, w1(1, 2) = 1;
  w2(1, 0) = 1, w2(1, 2) = 1;
  const ProxyGraph g1 = proxy_graph(w1, 0.3), g2 = proxy_graph(w2, 0.3);
  const Backbone b = cluster_backbone({&g1, &g2}, {3, 1}, 0.45);
  EXPECT_NEAR(b.cbar(0, 1), 0.75 * 1 + 0.25 * -1, 1e-9);  // 0.5: kept at tau_c = 0.45
  EXPECT_NEAR(b.cbar(1, 2), 1, 1e-9);
  EXPECT_EQ(b.order, (std::vector<int>{0, 1, 2}));  // ranks 0,1,2 (x3) and 1,0,2 (x1)
  EXPECT_EQ(b.g, graph(3, {{0, 1}, {1, 2}}));
  const Backbone strict = cluster_backbone({&g1, &g2}, {3, 1}, 0.55);
  EXPECT_EQ(strict.g, graph(3, {{1, 2}}));
  EXPECT_THROW(cluster_backbone({}, {}, 0.5), std::invalid_argument);
  EXPECT_THROW(cluster_backbone({&g1}, {1}, 0), std::invalid_argument);
}

TEST(CarpeflGraphs, EveryBackboneIsAcyclic) {
  // Members with conflicting orientations (random graphs, each made acyclic on its own):
  // however they disagree, the backbone follows one node order.
  std::mt19937_64 gen(9);
  std::uniform_real_distribution<double> weight(-1.5, 1.5);
  std::bernoulli_distribution present(0.3);
  for (int trial = 0; trial < 200; ++trial) {
    const int d = 3 + trial % 10;
    std::vector<ProxyGraph> members;
    std::vector<double> weights;
    for (int i = 0; i < 1 + trial % 4; ++i) {
      MatrixXd w = MatrixXd::Zero(d, d);
      for (int u = 0; u < d; ++u)
        for (int v = 0; v < d; ++v)
          if (u != v && present(gen)) w(u, v) = weight(gen);
      members.push_back(proxy_graph(w, 0.3));
      weights.push_back(1 + i);
      ASSERT_TRUE(is_acyclic(members.back().a));
    }
    std::vector<const ProxyGraph*> ptrs;
    for (const auto& m : members) ptrs.push_back(&m);
    for (double tau : {0.05, 0.3, 0.5, 1.0}) {
      const Backbone b = cluster_backbone(ptrs, weights, tau);
      EXPECT_TRUE(is_acyclic(b.g)) << "trial " << trial << " tau " << tau;
    }
  }
}

}  // namespace
}  // namespace fedgrid::carpefl

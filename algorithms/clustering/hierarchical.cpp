// Ward and average linkage, tree cuts and silhouettes over a distance matrix (see hierarchical.hpp).
#include "algorithms/clustering/hierarchical.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace fedgrid::clustering {
namespace {

void check_distances(const Eigen::MatrixXd& d) {
  if (d.rows() != d.cols()) throw std::invalid_argument("distance matrix is not square");
  if (!d.allFinite()) throw std::invalid_argument("distance matrix holds a value that is not finite");
  if ((d.array() < 0).any()) throw std::invalid_argument("distance matrix holds a negative distance");
  if (d.size() > 0 && (d - d.transpose()).cwiseAbs().maxCoeff() > 0)
    throw std::invalid_argument("distance matrix is not symmetric");
}

// Smallest root of a union-find forest, path-halving.
int root(std::vector<int>& parent, int x) {
  while (parent[size_t(x)] != x) x = parent[size_t(x)] = parent[size_t(parent[size_t(x)])];
  return x;
}

}  // namespace

Eigen::MatrixXd euclidean_distances(const Eigen::MatrixXd& points) {
  const Eigen::Index n = points.rows();
  Eigen::MatrixXd d = Eigen::MatrixXd::Zero(n, n);
  // Row differences, not |x|^2 + |y|^2 - 2xy: vectors that differ little (Theta vectors near
  // their initial value) would lose their distance to cancellation.
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = i + 1; j < n; ++j) d(i, j) = d(j, i) = (points.row(i) - points.row(j)).norm();
  return d;
}

Linkage ward_linkage(const Eigen::MatrixXd& distances) {
  check_distances(distances);
  const int n = int(distances.rows());
  Linkage tree;
  if (n < 2) return tree;
  // Slot s holds cluster id[s] (a point, or n + merge number) while active; a merge keeps the
  // lower slot and retires the other.
  Eigen::MatrixXd d = distances;
  Eigen::ArrayXd size = Eigen::ArrayXd::Ones(n);
  std::vector<int> id(static_cast<size_t>(n));
  std::iota(id.begin(), id.end(), 0);
  std::vector<bool> active(size_t(n), true);
  for (int step = 0; step < n - 1; ++step) {
    int bi = -1, bj = -1;
    double best = std::numeric_limits<double>::infinity();
    auto before = [&](int i, int j) {  // the tie rule: by cluster numbers, smaller pair first
      const auto p = std::minmax(id[size_t(i)], id[size_t(j)]), q = std::minmax(id[size_t(bi)], id[size_t(bj)]);
      return p < q;
    };
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        if (active[size_t(i)] && active[size_t(j)] && (d(i, j) < best || (d(i, j) == best && before(i, j))))
          best = d(i, j), bi = i, bj = j;
    const double ni = size(bi), nj = size(bj);
    const auto [a, b] = std::minmax(id[size_t(bi)], id[size_t(bj)]);
    tree.push_back({a, b, best, int(ni + nj)});
    // Lance-Williams for Ward on unsquared distances, for every other slot k at once.
    const Eigen::ArrayXd di = d.col(bi).array(), dj = d.col(bj).array();
    Eigen::ArrayXd merged = ((ni + size) * di.square() + (nj + size) * dj.square() - size * best * best) /
                            (ni + nj + size);
    merged = merged.max(0.0).sqrt();
    d.col(bi) = merged.matrix();
    d.row(bi) = merged.matrix().transpose();
    d(bi, bi) = 0;
    size(bi) = ni + nj;
    id[size_t(bi)] = n + step;
    active[size_t(bj)] = false;
  }
  return tree;
}

Linkage ward_linkage_points(const Eigen::MatrixXd& points) { return ward_linkage(euclidean_distances(points)); }

Linkage average_linkage(const Eigen::MatrixXd& distances) {
  check_distances(distances);
  const int n = int(distances.rows());
  // Active clusters in the order of their lowest points: a merge keeps the earlier one's place
  // and appends the later one's points, so scanning pairs in place order is the tie rule.
  std::vector<std::vector<int>> members;
  std::vector<int> id;
  for (int i = 0; i < n; ++i) members.push_back({i}), id.push_back(i);
  auto mean_distance = [&](const std::vector<int>& a, const std::vector<int>& b) {
    double sum = 0;
    for (int i : a)
      for (int j : b) sum += distances(i, j);
    return sum / double(a.size() * b.size());
  };
  Linkage tree;
  for (int step = 0; step < n - 1; ++step) {
    double best = std::numeric_limits<double>::infinity();
    size_t bi = 0, bj = 1;
    for (size_t i = 0; i < members.size(); ++i)
      for (size_t j = i + 1; j < members.size(); ++j)
        if (const double l = mean_distance(members[i], members[j]); l < best) best = l, bi = i, bj = j;
    const auto [a, b] = std::minmax(id[bi], id[bj]);
    members[bi].insert(members[bi].end(), members[bj].begin(), members[bj].end());
    tree.push_back({a, b, best, int(members[bi].size())});
    id[bi] = n + step;
    members.erase(members.begin() + std::ptrdiff_t(bj));
    id.erase(id.begin() + std::ptrdiff_t(bj));
  }
  return tree;
}

std::vector<int> cut_tree(const Linkage& tree, int k) {
  const int n = int(tree.size()) + 1;
  if (k < 1 || k > n)
    throw std::invalid_argument("cannot cut a tree of " + std::to_string(n) + " points into " + std::to_string(k) +
                                " clusters");
  // Union-find over cluster numbers 0..2n-2: the first n - k merges join their two clusters.
  std::vector<int> parent(static_cast<size_t>(2 * n - 1));
  std::iota(parent.begin(), parent.end(), 0);
  for (int s = 0; s < n - k; ++s) {
    parent[size_t(root(parent, tree[size_t(s)].a))] = n + s;
    parent[size_t(root(parent, tree[size_t(s)].b))] = n + s;
  }
  std::vector<int> labels(size_t(n), -1), number(size_t(2 * n - 1), -1);
  int next = 0;
  for (int i = 0; i < n; ++i) {
    int& label = number[size_t(root(parent, i))];
    if (label < 0) label = next++;
    labels[size_t(i)] = label;
  }
  return labels;
}

std::vector<int> cut_above(const Linkage& tree, double height) {
  int merges = 0;
  while (merges < int(tree.size()) && tree[size_t(merges)].height <= height) ++merges;
  return cut_tree(tree, int(tree.size()) + 1 - merges);
}

double mean_silhouette(const Eigen::MatrixXd& distances, const std::vector<int>& labels) {
  const Eigen::Index n = distances.rows();
  if (Eigen::Index(labels.size()) != n) throw std::invalid_argument("silhouette: one label per point is needed");
  const int k = labels.empty() ? 0 : *std::max_element(labels.begin(), labels.end()) + 1;
  if (k < 2 || k > n - 1)
    throw std::invalid_argument("silhouette needs 2 to n - 1 clusters, got " + std::to_string(k) + " for " +
                                std::to_string(n) + " points");
  Eigen::MatrixXd member = Eigen::MatrixXd::Zero(n, k);
  for (Eigen::Index i = 0; i < n; ++i) member(i, labels[size_t(i)]) = 1;
  const Eigen::MatrixXd sums = distances * member;  // i's summed distance to each cluster
  const Eigen::RowVectorXd count = member.colwise().sum();
  double total = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const int own = labels[size_t(i)];
    if (count(own) < 2) continue;  // alone in its cluster: s = 0
    const double a = sums(i, own) / (count(own) - 1);
    double b = std::numeric_limits<double>::infinity();
    for (int c = 0; c < k; ++c)
      if (c != own && count(c) > 0) b = std::min(b, sums(i, c) / count(c));
    const double m = std::max(a, b);
    total += m > 0 ? (b - a) / m : 0;
  }
  return total / double(n);
}

Partition best_silhouette_cut(const Eigen::MatrixXd& distances, int max_clusters) {
  const int n = int(distances.rows());
  Partition best{std::vector<int>(size_t(n), 0), 1, 0};
  if (n < 3) {
    check_distances(distances);
    return best;
  }
  const Linkage tree = ward_linkage(distances);
  const int top = max_clusters > 0 ? std::min(n - 1, max_clusters) : n - 1;
  for (int k = 2; k <= top; ++k) {
    std::vector<int> labels = cut_tree(tree, k);
    const double s = mean_silhouette(distances, labels);
    if (s > best.silhouette) best = {std::move(labels), k, s};  // strictly better: ties keep fewer clusters
  }
  return best;
}

double distance_flops(int64_t n, int64_t dims) { return 3.0 * double(n) * double(n - 1) / 2.0 * double(dims); }

double clustering_flops(int64_t n, int max_clusters) {
  const double m = double(n);
  const double ward = m * m * m / 2.0 + 10.0 * m * m;           // n - 1 searches of the pairs, the updates
  const int64_t cuts = max_clusters > 0 ? std::min<int64_t>(n - 2, max_clusters - 1) : n - 2;
  const double silhouettes = double(std::max<int64_t>(cuts, 0)) * (2.0 * m * m * m + 4.0 * m * m);  // D x members
  return ward + silhouettes;
}

}  // namespace fedgrid::clustering

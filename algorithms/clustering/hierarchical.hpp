#pragma once
// Agglomerative clustering over a precomputed distance matrix, the cut that maximises the mean
// silhouette, and the FLOPs to charge for it on the server. Torch-free (Eigen only), for every
// algorithm that groups hospitals by distances between what they send (UnifiedFL's Theta
// vectors, Pala & Rekik 2025; CarPe-FL's structural Hamming distances, Shin et al. 2026).
#include <Eigen/Dense>
#include <cstdint>
#include <vector>

namespace fedgrid::clustering {

// One merge of a linkage tree, in scipy's convention: clusters 0..n-1 are the points, the
// merge at step s creates cluster n + s from `a` < `b`, at `height`, holding `size` points.
struct Merge {
  int a = 0, b = 0;
  double height = 0;
  int size = 0;
};
using Linkage = std::vector<Merge>;  // n - 1 merges, in the order they happen

// Pairwise Euclidean distances between the rows of `points` (n x d): n x n, zero diagonal.
Eigen::MatrixXd euclidean_distances(const Eigen::MatrixXd& points);

// Ward's minimum-variance linkage from Euclidean distances (n x n, symmetric, zero diagonal),
// by the Lance-Williams update (scipy's linkage(method="ward") on the condensed matrix). The
// closest pair merges first; pairs at the same distance merge in the order of their cluster
// numbers (smaller first), so the tree never depends on anything but the matrix.
// Throws std::invalid_argument for a matrix that is not square, symmetric, finite and >= 0.
Linkage ward_linkage(const Eigen::MatrixXd& distances);
// Ward linkage of points (rows): ward_linkage(euclidean_distances(points)).
Linkage ward_linkage_points(const Eigen::MatrixXd& points);

// Average linkage (UPGMA): two clusters are as far apart as the mean distance between their
// points, taken from `distances` at every step rather than by a Lance-Williams update, so that
// integer distances (SHDs) stay exact and their ties stay ties. Ties go to the pair whose
// clusters' lowest points come first (the lower of the two, then the other), so the tree
// depends on nothing but the matrix. Heights never decrease from one merge to the next.
// Throws std::invalid_argument for a matrix that is not square, symmetric, finite and >= 0.
Linkage average_linkage(const Eigen::MatrixXd& distances);

// The flat clustering with `k` clusters (1 <= k <= n): the tree before its last k - 1 merges.
// Labels 0..k-1 numbered in the order of each cluster's lowest point.
std::vector<int> cut_tree(const Linkage& tree, int k);
// The flat clustering before the first merge higher than `height` (a tree whose heights never
// decrease, as average linkage's and Ward's): merges at exactly `height` happen. Labels as cut_tree.
std::vector<int> cut_above(const Linkage& tree, double height);

// Mean silhouette of `labels` under `distances` (Rousseeuw 1987, as scikit-learn computes it):
// s(i) = (b - a) / max(a, b) with a the mean distance to the rest of i's cluster and b the
// smallest mean distance to another cluster; s(i) = 0 for a point alone in its cluster and
// when a = b = 0. Needs 2 <= clusters <= n - 1 (throws std::invalid_argument otherwise).
double mean_silhouette(const Eigen::MatrixXd& distances, const std::vector<int>& labels);

struct Partition {
  std::vector<int> labels;  // per point, numbered as cut_tree numbers them
  int clusters = 1;
  double silhouette = 0;  // the chosen cut's mean silhouette (0 when one cluster)
};

// The cut of the Ward tree with the best mean silhouette among k = 2..min(n - 1, max_clusters)
// (max_clusters <= 0: no cap). Ties go to the fewer clusters. One cluster when n < 3 (no cut
// has a silhouette) or when no cut reaches a positive mean silhouette (nothing separates).
Partition best_silhouette_cut(const Eigen::MatrixXd& distances, int max_clusters = 0);

// FLOPs charged on the server: the distance matrix of n points of `dims` values (a
// subtraction, a multiply and an add per value and pair), Ward's O(n^3) update and the
// silhouettes of every cut tried.
double distance_flops(int64_t n, int64_t dims);
double clustering_flops(int64_t n, int max_clusters = 0);

}  // namespace fedgrid::clustering

// Hierarchical clustering (algorithms/clustering/hierarchical.hpp): Ward and average linkage,
// tree cuts and silhouettes on small point sets and distance matrices computed by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "algorithms/clustering/hierarchical.hpp"

namespace fedgrid {
namespace {

// Points 0, 1, 5, 6, 20 on a line.
Eigen::MatrixXd line_points() {
  Eigen::MatrixXd p(5, 1);
  p << 0, 1, 5, 6, 20;
  return p;
}

TEST(Clustering, WardLinkageByHand) {
  const auto tree = clustering::ward_linkage_points(line_points());
  ASSERT_EQ(tree.size(), 4u);
  // {0,1} and {5,6} at 1 (the tie goes to the lower cluster numbers); then the two pairs at
  // sqrt(2 n1 n2 / (n1 + n2)) |c1 - c2| = sqrt(2) * 5; then 20 at sqrt(2 * 4 / 5) * 17.
  EXPECT_EQ(tree[0].a, 0);
  EXPECT_EQ(tree[0].b, 1);
  EXPECT_DOUBLE_EQ(tree[0].height, 1.0);
  EXPECT_EQ(tree[0].size, 2);
  EXPECT_EQ(tree[1].a, 2);
  EXPECT_EQ(tree[1].b, 3);
  EXPECT_DOUBLE_EQ(tree[1].height, 1.0);
  EXPECT_EQ(tree[2].a, 5);
  EXPECT_EQ(tree[2].b, 6);
  EXPECT_NEAR(tree[2].height, std::sqrt(2.0) * 5, 1e-12);
  EXPECT_EQ(tree[3].a, 4);
  EXPECT_EQ(tree[3].b, 7);
  EXPECT_NEAR(tree[3].height, std::sqrt(1.6) * 17, 1e-12);
  EXPECT_EQ(tree[3].size, 5);
  EXPECT_EQ(clustering::cut_tree(tree, 2), (std::vector<int>{0, 0, 0, 0, 1}));
  EXPECT_EQ(clustering::cut_tree(tree, 3), (std::vector<int>{0, 0, 1, 1, 2}));
  EXPECT_EQ(clustering::cut_tree(tree, 5), (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(clustering::cut_tree(tree, 1), (std::vector<int>{0, 0, 0, 0, 0}));
}

TEST(Clustering, SilhouetteByHandAndTheBestCut) {
  const Eigen::MatrixXd d = clustering::euclidean_distances(line_points());
  EXPECT_DOUBLE_EQ(d(0, 4), 20.0);
  // k = 2: s = (16/20, (19 - 10/3)/19, (15 - 10/3)/15, 10/14, 0).
  const double k2 = (0.8 + (19 - 10.0 / 3) / 19 + (15 - 10.0 / 3) / 15 + 10.0 / 14) / 5;
  EXPECT_NEAR(clustering::mean_silhouette(d, {0, 0, 0, 0, 1}), k2, 1e-12);
  // k = 3: s = (4.5/5.5, 3.5/4.5, 3.5/4.5, 4.5/5.5, 0).
  const double k3 = (2 * 4.5 / 5.5 + 2 * 3.5 / 4.5) / 5;
  EXPECT_NEAR(clustering::mean_silhouette(d, {0, 0, 1, 1, 2}), k3, 1e-12);
  EXPECT_NEAR(clustering::mean_silhouette(d, {0, 0, 1, 2, 3}), (0.8 + 0.75) / 5, 1e-12);
  const auto best = clustering::best_silhouette_cut(d);
  EXPECT_EQ(best.clusters, 3);
  EXPECT_EQ(best.labels, (std::vector<int>{0, 0, 1, 1, 2}));
  EXPECT_NEAR(best.silhouette, k3, 1e-12);
  EXPECT_EQ(clustering::best_silhouette_cut(d, 2).clusters, 2);  // the cap
  // Nothing to separate: identical points, and fewer than three.
  EXPECT_EQ(clustering::best_silhouette_cut(Eigen::MatrixXd::Zero(4, 4)).clusters, 1);
  EXPECT_EQ(clustering::best_silhouette_cut(clustering::euclidean_distances(line_points().topRows(2))).clusters, 1);
  EXPECT_THROW(clustering::mean_silhouette(d, {0, 0, 0, 0, 0}), std::invalid_argument);
  Eigen::MatrixXd bad = d;
  bad(0, 1) = -1;
  EXPECT_THROW(clustering::ward_linkage(bad), std::invalid_argument);
}

// Items 0 and 2 close (1), 1 and 3 close (2), the two pairs far apart (10): CarPe-FL's shape,
// integer SHDs.
Eigen::MatrixXd two_pairs() {
  Eigen::MatrixXd d(4, 4);
  d << 0, 10, 1, 10, 10, 0, 10, 2, 1, 10, 0, 10, 10, 2, 10, 0;
  return d;
}

TEST(Clustering, AverageLinkageByHand) {
  const auto tree = clustering::average_linkage(two_pairs());
  ASSERT_EQ(tree.size(), 3u);
  EXPECT_EQ(tree[0].a, 0);
  EXPECT_EQ(tree[0].b, 2);
  EXPECT_DOUBLE_EQ(tree[0].height, 1.0);
  EXPECT_EQ(tree[1].a, 1);
  EXPECT_EQ(tree[1].b, 3);
  EXPECT_DOUBLE_EQ(tree[1].height, 2.0);
  EXPECT_EQ(tree[2].a, 4);
  EXPECT_EQ(tree[2].b, 5);
  EXPECT_DOUBLE_EQ(tree[2].height, 10.0);  // the mean of four 10s
  EXPECT_EQ(tree[2].size, 4);
  // Cut by count, and by height (merges at exactly the height happen).
  EXPECT_EQ(clustering::cut_tree(tree, 2), (std::vector<int>{0, 1, 0, 1}));
  EXPECT_EQ(clustering::cut_tree(tree, 1), (std::vector<int>{0, 0, 0, 0}));
  EXPECT_EQ(clustering::cut_above(tree, 3), (std::vector<int>{0, 1, 0, 1}));
  EXPECT_EQ(clustering::cut_above(tree, 2), (std::vector<int>{0, 1, 0, 1}));
  EXPECT_EQ(clustering::cut_above(tree, 1.5), (std::vector<int>{0, 1, 0, 2}));
  EXPECT_EQ(clustering::cut_above(tree, 0.5), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(clustering::cut_above(tree, 10), (std::vector<int>{0, 0, 0, 0}));
  EXPECT_THROW(clustering::cut_tree(tree, 5), std::invalid_argument);
  Eigen::MatrixXd asymmetric(2, 2);
  asymmetric << 0, 1, 2, 0;
  EXPECT_THROW(clustering::average_linkage(asymmetric), std::invalid_argument);
}

TEST(Clustering, AverageLinkageTiesGoToTheLowestPoints) {
  // 0-1 merge first (1); then {0,1}-2 and 2-3 both at 4: the pair whose lowest points come
  // first ({0,1} before 2) merges, where Ward's rule by cluster numbers would take 2-3.
  Eigen::MatrixXd d(4, 4);
  d << 0, 1, 4, 9, 1, 0, 4, 9, 4, 4, 0, 4, 9, 9, 4, 0;
  const auto tree = clustering::average_linkage(d);
  EXPECT_EQ(tree[1].a, 2);
  EXPECT_EQ(tree[1].b, 4);
  EXPECT_DOUBLE_EQ(tree[1].height, 4.0);
  EXPECT_DOUBLE_EQ(tree[2].height, (9 + 9 + 4) / 3.0);
  EXPECT_EQ(clustering::cut_tree(tree, 2), (std::vector<int>{0, 0, 0, 1}));
}

}  // namespace
}  // namespace fedgrid

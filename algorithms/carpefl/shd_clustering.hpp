#pragma once
// Agglomerative hierarchical clustering over a precomputed distance matrix (CarPe-FL clusters
// hospitals by the SHD between their proxy graphs, Sec. 4.3). Average linkage (UPGMA); merging
// stops at `clusters` clusters, or, with clusters = 0, once the closest two are farther apart
// than `max_merge_distance`. Plain C++, no torch.
#include <vector>

namespace fedgrid::carpefl {

// A label per item, 0..K-1, numbered by each cluster's first item (item 0 is in cluster 0).
// Ties between equally close pairs merge the pair with the smallest indices first, so the
// result is deterministic. Throws std::invalid_argument for a matrix that is not square,
// symmetric, non-negative, or for clusters > items.
std::vector<int> average_linkage(const std::vector<std::vector<double>>& distance, int clusters,
                                 double max_merge_distance);

}  // namespace fedgrid::carpefl

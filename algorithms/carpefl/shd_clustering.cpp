// Average-linkage clustering over a distance matrix. The CarPe-FL paper names hierarchical
// clustering on the SHD matrix but neither the linkage nor the cut: average linkage is
// chosen because SHD is not Euclidean (Ward's criterion assumes squared Euclidean distances).
#include "algorithms/carpefl/shd_clustering.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace fedgrid::carpefl {

std::vector<int> average_linkage(const std::vector<std::vector<double>>& distance, int clusters,
                                 double max_merge_distance) {
  const size_t n = distance.size();
  for (size_t i = 0; i < n; ++i) {
    if (distance[i].size() != n) throw std::invalid_argument("clustering needs a square distance matrix");
    for (size_t j = 0; j < n; ++j)
      if (!(distance[i][j] >= 0) || distance[i][j] != distance[j][i])
        throw std::invalid_argument("clustering needs symmetric, non-negative distances");
  }
  if (clusters < 0 || size_t(clusters) > n) throw std::invalid_argument("more clusters asked for than items");
  std::vector<std::vector<size_t>> groups;
  for (size_t i = 0; i < n; ++i) groups.push_back({i});
  auto linkage = [&](const std::vector<size_t>& a, const std::vector<size_t>& b) {
    double sum = 0;
    for (size_t i : a)
      for (size_t j : b) sum += distance[i][j];
    return sum / double(a.size() * b.size());
  };
  while (groups.size() > 1 && (clusters == 0 || groups.size() > size_t(clusters))) {
    double best = std::numeric_limits<double>::infinity();
    size_t bi = 0, bj = 0;
    for (size_t i = 0; i < groups.size(); ++i)
      for (size_t j = i + 1; j < groups.size(); ++j)
        if (const double l = linkage(groups[i], groups[j]); l < best) best = l, bi = i, bj = j;
    if (clusters == 0 && best > max_merge_distance) break;
    groups[bi].insert(groups[bi].end(), groups[bj].begin(), groups[bj].end());
    groups.erase(groups.begin() + std::ptrdiff_t(bj));
  }
  // Groups keep the position of their first item (merges fold later groups into earlier
  // ones), so numbering them in order numbers clusters by their first item.
  std::vector<int> label(n, -1);
  std::vector<std::pair<size_t, size_t>> firsts;
  for (size_t g = 0; g < groups.size(); ++g) {
    size_t first = n;
    for (size_t i : groups[g]) first = std::min(first, i);
    firsts.push_back({first, g});
  }
  std::sort(firsts.begin(), firsts.end());
  for (size_t k = 0; k < firsts.size(); ++k)
    for (size_t i : groups[firsts[k].second]) label[i] = int(k);
  return label;
}

}  // namespace fedgrid::carpefl

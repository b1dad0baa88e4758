#include "algorithms/aggregation.hpp"

#include <stdexcept>

namespace fedgrid::algorithms {

Model weighted_average(const std::vector<Update>& updates) {
  if (updates.empty()) throw std::logic_error("weighted_average: no updates");
  const Model& first = updates.front().model;
  const size_t n = first.weights.size();
  double total = 0;
  for (const auto& u : updates) {
    if (u.model.weights.size() != n || u.model.values() != first.values() || !(u.model.spec == first.spec))
      throw std::logic_error("weighted_average: updates of different models");
    total += double(u.samples);
  }
  if (total <= 0) throw std::logic_error("weighted_average: updates carry no samples");
  if (!first.holds_state()) return shape_only_model(first.spec, first.values());  // timing-only
  std::vector<double> sum(n, 0.0);
  for (const auto& u : updates) {
    const double w = double(u.samples) / total;
    const float* v = u.model.weights.data();
    for (size_t i = 0; i < n; ++i) sum[i] += w * double(v[i]);
  }
  Model out{updates.front().model.spec, std::vector<float>(n)};
  for (size_t i = 0; i < n; ++i) out.weights[i] = float(sum[i]);
  return out;
}

double weighted_average_flops(const std::vector<Update>& updates) {
  if (updates.empty()) return 0;
  return 2.0 * double(updates.front().model.values()) * double(updates.size());
}

}  // namespace fedgrid::algorithms

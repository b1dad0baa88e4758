#include "algorithms/aggregation.hpp"

#include <stdexcept>

#include "sim/jobs/deferred_training.hpp"

namespace fedgrid::algorithms {

Model weighted_average(const std::vector<Update>& updates) {
  if (updates.empty()) throw std::logic_error("weighted_average: no updates");
  const Model& first = updates.front().model;
  const int64_t n = first.values();
  double total = 0;
  bool trained = false;  // any weights, held or still to train (not a timing-only run)
  for (const auto& u : updates) {
    if (u.model.values() != n || !(u.model.spec == first.spec))
      throw std::logic_error("weighted_average: updates of different models");
    total += double(u.samples);
    trained = trained || u.model.holds_state() || u.deferred;
  }
  if (total <= 0) throw std::logic_error("weighted_average: updates carry no samples");
  if (!trained) return shape_only_model(first.spec, n);  // timing-only
  // In the order of `updates`, whenever each one's weights exist (sim/jobs/deferred_training.hpp).
  std::vector<double> sum(size_t(n), 0.0);
  for_each_trained(updates, [&](const Update& u) {
    if (u.model.values() != n || !u.model.holds_state())
      throw std::logic_error("weighted_average: an update without weights among trained ones");
    const double w = double(u.samples) / total;
    const float* v = u.model.weights.data();
    for (size_t i = 0; i < size_t(n); ++i) sum[i] += w * double(v[i]);
  });
  Model out{first.spec, std::vector<float>(size_t(n))};
  for (size_t i = 0; i < size_t(n); ++i) out.weights[i] = float(sum[i]);
  return out;
}

double weighted_average_flops(const std::vector<Update>& updates) {
  if (updates.empty()) return 0;
  return 2.0 * double(updates.front().model.values()) * double(updates.size());
}

}  // namespace fedgrid::algorithms

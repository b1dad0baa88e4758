#include "algorithms/submodel.hpp"

#include <stdexcept>
#include <string>

namespace fedgrid::algorithms {
namespace {

std::invalid_argument mismatch(const models::ModelSpec& wide, const models::ModelSpec& narrow, const std::string& why) {
  return std::invalid_argument("'" + models::spec_label(narrow) + "' is not a sub-model of '" +
                               models::spec_label(wide) + "': " + why);
}

}  // namespace

void check_submodel(const models::ModelSpec& wide, const models::ModelSpec& narrow) {
  if (wide.arch != narrow.arch || wide.channels != narrow.channels || wide.height != narrow.height ||
      wide.width != narrow.width || wide.num_classes != narrow.num_classes)
    throw mismatch(wide, narrow, "a sub-model needs the same architecture, input and classes");
  if (narrow.width_multiplier > wide.width_multiplier)
    throw mismatch(wide, narrow, "it is wider");
}

std::vector<int64_t> submodel_index(const models::ModelSpec& wide, const models::ModelSpec& narrow, int64_t offset) {
  check_submodel(wide, narrow);
  const auto wide_layout = models::state_layout(wide), narrow_layout = models::state_layout(narrow);
  std::vector<int64_t> index;
  index.reserve(size_t(models::model_cost(narrow).state_values));
  int64_t base = 0;  // where the tensor starts in the wide state
  for (size_t t = 0; t < wide_layout.size(); ++t) {
    const auto& w_axes = wide_layout[t].axes;
    const auto& n_axes = narrow_layout[t].axes;
    // Per axis: narrow position -> wide position; and the wide strides.
    std::vector<std::vector<int64_t>> to_wide(n_axes.size());
    std::vector<int64_t> stride(w_axes.size(), 1);
    for (size_t a = w_axes.size(); a-- > 0;)
      if (a + 1 < w_axes.size()) stride[a] = stride[a + 1] * w_axes[a + 1].channels * w_axes[a + 1].block;
    for (size_t a = 0; a < n_axes.size(); ++a) {
      const auto &n = n_axes[a], &w = w_axes[a];
      if (n.block != w.block || n.scaled != w.scaled || (!n.scaled && n.channels != w.channels))
        throw std::logic_error("state layouts of one arch disagree");
      for (int64_t c = 0; c < n.channels; ++c) {
        const int64_t wide_c = n.scaled ? (offset + c) % w.channels : c;
        for (int64_t r = 0; r < n.block; ++r) to_wide[a].push_back(wide_c * w.block + r);
      }
    }
    // Odometer over the narrow tensor, outermost axis first (row-major, as torch stores it).
    std::vector<size_t> pos(n_axes.size(), 0);
    for (int64_t i = 0, n = narrow_layout[t].numel(); i < n; ++i) {
      int64_t at = base;
      for (size_t a = 0; a < pos.size(); ++a) at += to_wide[a][pos[a]] * stride[a];
      index.push_back(at);
      for (size_t a = pos.size(); a-- > 0;) {
        if (++pos[a] < to_wide[a].size()) break;
        pos[a] = 0;
      }
    }
    base += wide_layout[t].numel();
  }
  return index;
}

Model extract_submodel(const Model& wide, const models::ModelSpec& narrow, const std::vector<int64_t>& index) {
  Model out = shape_only_model(narrow, int64_t(index.size()));
  if (!wide.holds_state()) return out;
  out.weights.resize(index.size());
  for (size_t i = 0; i < index.size(); ++i) out.weights[i] = wide.weights[size_t(index[i])];
  return out;
}

Model aggregate_submodels(const Model& wide, const std::vector<Update>& updates,
                          const std::vector<const std::vector<int64_t>*>& index) {
  if (updates.size() != index.size()) throw std::invalid_argument("aggregate_submodels: one index per update");
  if (!wide.holds_state()) return wide;
  // Two passes, so that each term is (n_k / n_holders) * w as in weighted_average(): with every
  // update holding every value the result is FedAvg's, bit for bit.
  std::vector<double> holders(wide.weights.size(), 0.0), sum(wide.weights.size(), 0.0);
  for (size_t k = 0; k < updates.size(); ++k) {
    if (updates[k].model.weights.size() != index[k]->size())
      throw std::invalid_argument("aggregate_submodels: update and index sizes differ");
    for (int64_t g : *index[k]) holders[size_t(g)] += double(updates[k].samples);
  }
  for (size_t k = 0; k < updates.size(); ++k) {
    const auto& w = updates[k].model.weights;
    const auto& idx = *index[k];
    const double n = double(updates[k].samples);
    for (size_t i = 0; i < idx.size(); ++i) {
      const size_t g = size_t(idx[i]);
      sum[g] += n / holders[g] * double(w[i]);
    }
  }
  Model out = wide;
  for (size_t g = 0; g < sum.size(); ++g)
    if (holders[g] > 0) out.weights[g] = float(sum[g]);
  return out;
}

double aggregate_submodels_flops(const std::vector<Update>& updates) {
  double held = 0;
  for (const auto& u : updates) held += double(u.model.values());
  return 2.0 * held;
}

}  // namespace fedgrid::algorithms

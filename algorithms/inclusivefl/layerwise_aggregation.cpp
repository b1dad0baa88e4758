#include "algorithms/inclusivefl/layerwise_aggregation.hpp"

namespace fedgrid::algorithms::inclusivefl {
namespace {

// The group's update: its updates' sample-weighted mean minus its model; empty when none came.
std::vector<double> group_delta(const DepthGroup& g, double& samples) {
  samples = 0;
  if (g.updates.empty()) return {};
  const std::vector<float>& base = g.model->weights;
  std::vector<double> sum(base.size(), 0.0);
  for (const Update* u : g.updates) {
    const double n = double(u->samples);
    samples += n;
    for (size_t i = 0; i < sum.size(); ++i) sum[i] += n * double(u->model.weights[i]);
  }
  for (size_t i = 0; i < sum.size(); ++i) sum[i] = sum[i] / samples - double(base[i]);
  return sum;
}

// Whether group `h` takes part in the cross-depth average of conv layer `l`: it trained this
// round and holds `l` below its own top.
bool shares_layer(const DepthGroup& h, int l) { return !h.updates.empty() && l + 1 < h.layers->convs; }

double layer_values(const DepthLayers& layers, int layer) {
  double n = 0;
  for (const auto* t : layers.layer_tensors(layer)) n += double(t->numel);
  return n;
}

}  // namespace

std::vector<Model> layerwise_aggregate(const std::vector<DepthGroup>& groups, double beta) {
  std::vector<Model> out;
  const size_t count = groups.size();
  std::vector<double> samples(count, 0.0);
  std::vector<std::vector<double>> delta(count);
  for (size_t g = 0; g < count; ++g) delta[g] = group_delta(groups[g], samples[g]);

  // Momentum distillation, from the deltas as trained (a deeper top's own mix is not passed on).
  std::vector<std::vector<double>> mixed = delta;
  for (size_t g = 0; g + 1 < count; ++g) {
    if (delta[g].empty() || delta[g + 1].empty()) continue;
    const DepthLayers &mine = *groups[g].layers, &deeper = *groups[g + 1].layers;
    const int top = mine.convs - 1;
    const auto target = mine.layer_tensors(top);
    std::vector<std::vector<const LayerTensor*>> sources;
    for (int l = top; l < deeper.convs; ++l) sources.push_back(deeper.layer_tensors(l));
    const double share = 1.0 / double(sources.size());
    for (size_t k = 0; k < target.size(); ++k)
      for (int64_t i = 0; i < target[k]->numel; ++i) {
        double transferred = 0;
        for (const auto& src : sources) transferred += delta[g + 1][size_t(src[k]->offset + i)];
        double& value = mixed[g][size_t(target[k]->offset + i)];
        value = (1 - beta) * value + beta * share * transferred;
      }
  }

  for (size_t g = 0; g < count; ++g) {
    Model m = *groups[g].model;
    const DepthLayers& mine = *groups[g].layers;
    if (!mixed[g].empty())
      for (size_t i = 0; i < m.weights.size(); ++i) m.weights[i] = float(double(m.weights[i]) + mixed[g][i]);
    // Shared layers: the weighted mean update over every depth that holds the layer below its top.
    for (int l = 0; l + 1 < mine.convs; ++l) {
      std::vector<size_t> holders;
      double n = 0;
      for (size_t h = 0; h < count; ++h)
        if (shares_layer(groups[h], l)) holders.push_back(h), n += samples[h];
      if (holders.empty()) continue;
      const auto target = mine.layer_tensors(l);
      std::vector<std::vector<const LayerTensor*>> held;  // the layer's tensors in each holder
      for (size_t h : holders) held.push_back(groups[h].layers->layer_tensors(l));
      for (size_t k = 0; k < target.size(); ++k)
        for (int64_t i = 0; i < target[k]->numel; ++i) {
          double sum = 0;
          for (size_t j = 0; j < holders.size(); ++j)
            sum += samples[holders[j]] * delta[holders[j]][size_t(held[j][k]->offset + i)];
          const size_t at = size_t(target[k]->offset + i);
          m.weights[at] = float(double(groups[g].model->weights[at]) + sum / n);
        }
    }
    out.push_back(std::move(m));
  }
  return out;
}

double layerwise_flops(const std::vector<DepthGroup>& groups) {
  double flops = 0;
  const size_t count = groups.size();
  for (const auto& g : groups)
    for (const Update* u : g.updates) flops += 2.0 * double(u->model.values());
  for (size_t g = 0; g + 1 < count; ++g)
    if (!groups[g].updates.empty() && !groups[g + 1].updates.empty()) {
      const int top = groups[g].layers->convs - 1, sources = groups[g + 1].layers->convs - top;
      flops += layer_values(*groups[g].layers, top) * (double(sources) + 3.0);
    }
  for (const auto& g : groups)
    for (int l = 0; l + 1 < g.layers->convs; ++l) {
      int holders = 0;
      for (const auto& h : groups) holders += shares_layer(h, l);
      flops += 2.0 * double(holders) * layer_values(*g.layers, l);
    }
  return flops;
}

}  // namespace fedgrid::algorithms::inclusivefl

#include "algorithms/inclusivefl/depth_family.hpp"

#include <stdexcept>
#include <string>

#include "models/vgg_layout.hpp"

namespace fedgrid::algorithms::inclusivefl {
namespace {

bool same_shape(const models::StateTensor& a, const models::StateTensor& b) {
  if (a.axes.size() != b.axes.size()) return false;
  for (size_t i = 0; i < a.axes.size(); ++i)
    if (a.axes[i].channels != b.axes[i].channels || a.axes[i].block != b.axes[i].block) return false;
  return true;
}

bool same_layer_shape(const DepthLayers& a, int layer_a, const DepthLayers& b, int layer_b) {
  const auto ta = a.layer_tensors(layer_a), tb = b.layer_tensors(layer_b);
  if (ta.size() != tb.size()) return false;
  for (size_t k = 0; k < ta.size(); ++k)
    if (!same_shape(ta[k]->shape, tb[k]->shape)) return false;
  return true;
}

}  // namespace

std::vector<const LayerTensor*> DepthLayers::layer_tensors(int layer) const {
  std::vector<const LayerTensor*> out;
  for (const auto& t : tensors)
    if (t.layer == layer) out.push_back(&t);
  return out;
}

DepthLayers depth_layers(const models::ModelSpec& spec) {
  const models::VggLayout* vgg = models::vgg_layout(spec.arch);
  if (!vgg) {
    std::string vggs;
    for (const auto& arch : models::known_archs())
      if (models::vgg_layout(arch)) vggs += (vggs.empty() ? "" : ", ") + arch;
    throw std::invalid_argument("model arch '" + spec.arch + "' is not VGG-style (" + vggs + ")");
  }
  const std::vector<models::StateTensor> layout = models::state_layout(spec);
  // The walk's order (models/model_cost.cpp): per conv layer its weight, bias, BN weight and
  // BN bias; each fc layer's weight and bias; then per conv layer the BN's three buffers.
  std::vector<int> owner;
  DepthLayers out;
  for (int64_t c : vgg->features)
    if (c >= 0) owner.insert(owner.end(), 4, out.convs++);
  owner.insert(owner.end(), 2 * (vgg->hidden.size() + 1), -1);
  for (int layer = 0; layer < out.convs; ++layer) owner.insert(owner.end(), 3, layer);
  if (owner.size() != layout.size())
    throw std::logic_error("depth_layers: " + spec.arch + "'s state has " + std::to_string(layout.size()) +
                           " tensors, its VGG layout " + std::to_string(owner.size()));
  int64_t offset = 0;
  for (size_t i = 0; i < layout.size(); ++i) {
    out.tensors.push_back({offset, layout[i].numel(), owner[i], layout[i]});
    offset += layout[i].numel();
  }
  return out;
}

void check_depth_family(const std::vector<models::ModelSpec>& specs) {
  std::vector<DepthLayers> layers;
  for (const auto& s : specs) layers.push_back(depth_layers(s));
  for (size_t i = 0; i + 1 < specs.size(); ++i) {
    const DepthLayers &shallow = layers[i], &deep = layers[i + 1];
    const std::string pair = models::spec_label(specs[i]) + " and " + models::spec_label(specs[i + 1]);
    if (shallow.convs >= deep.convs)
      throw std::invalid_argument(pair + " have the same depth (" + std::to_string(deep.convs) +
                                  " conv layers): InclusiveFL needs one depth per model");
    for (int l = 0; l < shallow.convs; ++l)
      if (!same_layer_shape(shallow, l, deep, l))
        throw std::invalid_argument(pair + " differ in conv layer " + std::to_string(l + 1) +
                                    ": a shallower model must be the bottom of the deeper one (one VGG family)");
    const int top = shallow.convs - 1;
    for (int l = top + 1; l < deep.convs; ++l)
      if (!same_layer_shape(shallow, top, deep, l))
        throw std::invalid_argument(models::spec_label(specs[i + 1]) + "'s conv layer " + std::to_string(l + 1) +
                                    " has another shape than " + models::spec_label(specs[i]) +
                                    "'s top layer, which momentum distillation updates from it");
  }
}

}  // namespace fedgrid::algorithms::inclusivefl

// Analytic model costs, computed from layer shapes alone so that timing and payload
// estimates never need torch. Each arch's layer list is written once (the walk_* functions)
// and drives both the parameter count and the FLOP count.
#include <algorithm>
#include <iterator>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/arch_names.hpp"
#include "models/causal_layout.hpp"
#include "models/model_spec.hpp"
#include "models/vgg_layout.hpp"

namespace fedgrid::models {
namespace {

std::string shape_text(const ModelSpec& spec) {
  return std::to_string(spec.channels) + "x" + std::to_string(spec.height) + "x" +
         std::to_string(spec.width);
}

// Follows the activation shape through a stack of layers, summing parameters and MACs and
// recording the state layout and the KxK conv sites. Biases add parameters but no FLOPs;
// activations and pooling add neither: the cost model counts only the multiply-adds of conv
// and linear layers, which dominate training time. Hidden widths are given at width 1 and
// scaled here; the input channels and the class count are not.
class LayerWalk {
 public:
  explicit LayerWalk(const ModelSpec& spec)
      : spec_(spec), channels_(spec.channels), height_(spec.height), width_(spec.width) {}

  void conv(int64_t base_out, int64_t kernel, int64_t padding, int64_t stride = 1, bool bias = true) {
    add_conv(spec_.scaled(base_out), kernel, padding, stride, bias);
  }

  // Batch norm: weight and bias; running mean, running var and the batch counter as buffers.
  void batchnorm() {
    if (height_ * width_ == 1) batchnorm_on_1x1_ = true;
    parameters_ += 2 * channels_;
    buffers_ += 2 * channels_ + 1;
    const StateTensor per_channel{{channel_axis()}, true};
    params_layout_.insert(params_layout_.end(), {per_channel, per_channel});
    buffers_layout_.insert(buffers_layout_.end(), {per_channel, per_channel, StateTensor{{}, true}});
  }

  void global_avgpool() { height_ = width_ = 1; }

  // A tensor of a module outside the layer kinds here (CarPe-FL's graph module), never scaled;
  // its multiply-adds are added with macs().
  void tensor(std::initializer_list<int64_t> dims, bool buffer = false) {
    StateTensor t;
    for (int64_t n : dims) t.axes.push_back({n, 1, false});
    (buffer ? buffers_ : parameters_) += t.numel();
    (buffer ? buffers_layout_ : params_layout_).push_back(t);
  }
  void macs(int64_t n) { macs_ += n; }
  // A fully connected layer to `n` unscaled features (a latent code).
  void latent(int64_t n) { add_linear(n, false); }
  // The activation is now a flat vector of `n` features (a readout over a graph's nodes).
  void features(int64_t n) { channels_ = n, height_ = width_ = 1, channels_scaled_ = false; }

  // The current activation is a stage output (after its ReLU/pool) that distillation may tap.
  void tap() { taps_.push_back({channels_, height_, width_}); }

  // A residual block's shortcut, a 1x1 conv (stride) + batch norm from the block's input
  // shape `in` to the current shape, added without changing the current shape.
  struct Shape {
    int64_t channels, height, width;
    bool scaled;
  };
  Shape shape() const { return {channels_, height_, width_, channels_scaled_}; }
  void projection_shortcut(const Shape& in, int64_t stride) {
    const Shape out = shape();
    channels_ = in.channels, height_ = in.height, width_ = in.width, channels_scaled_ = in.scaled;
    add_conv(out.channels, 1, 0, stride, false);
    batchnorm();
    if (channels_ != out.channels || height_ != out.height || width_ != out.width)
      throw std::logic_error("projection shortcut does not meet the block's output");
  }

  void maxpool(int64_t kernel, int64_t stride, int64_t padding) {
    height_ = (height_ + 2 * padding - kernel) / stride + 1;
    width_ = (width_ + 2 * padding - kernel) / stride + 1;
    require_nonempty();
  }

  void maxpool2() {  // kernel 2, stride 2, floor
    height_ /= 2;
    width_ /= 2;
    require_nonempty();
  }

  // A hidden fully connected layer; flattens whatever shape came before, as x.flatten(1) does.
  void linear(int64_t base_out) { add_linear(spec_.scaled(base_out), true); }
  // The last layer: one output per class, never scaled.
  void classifier(int64_t classes) { add_linear(classes, false); }

  ModelCost cost() const {
    return {.parameters = parameters_, .state_values = parameters_ + buffers_, .forward_flops = 2.0 * macs_};
  }
  std::vector<StateTensor> layout() const {
    std::vector<StateTensor> all = params_layout_;
    all.insert(all.end(), buffers_layout_.begin(), buffers_layout_.end());
    return all;
  }
  const std::vector<ConvSite>& conv_sites() const { return sites_; }
  bool batchnorm_on_1x1() const { return batchnorm_on_1x1_; }
  const std::vector<FeatureTap>& taps() const { return taps_; }

 private:
  StateAxis channel_axis(int64_t block = 1) const { return {channels_, block, channels_scaled_}; }

  void add_conv(int64_t out_channels, int64_t kernel, int64_t padding, int64_t stride, bool bias) {
    ConvSite site{channels_, out_channels, kernel, stride, padding, height_, width_, 0, 0, bias};
    const StateAxis in_axis = channel_axis();
    height_ = (height_ + 2 * padding - kernel) / stride + 1;
    width_ = (width_ + 2 * padding - kernel) / stride + 1;
    require_nonempty();
    site.out_h = height_, site.out_w = width_;
    if (kernel > 1) sites_.push_back(site);
    const int64_t weights = out_channels * channels_ * kernel * kernel;
    parameters_ += weights + (bias ? out_channels : 0);
    macs_ += weights * height_ * width_;  // = Cout*Hout*Wout*Cin*K*K
    const StateAxis out_axis{out_channels, 1, true}, k{kernel, 1, false};
    params_layout_.push_back({{out_axis, in_axis, k, k}});
    if (bias) params_layout_.push_back({{out_axis}});
    channels_ = out_channels, channels_scaled_ = true;
  }

  void add_linear(int64_t out_features, bool scaled) {
    const StateAxis in_axis = channel_axis(height_ * width_);
    const int64_t in_features = channels_ * height_ * width_;
    parameters_ += in_features * out_features + out_features;
    macs_ += in_features * out_features;
    const StateAxis out_axis{out_features, 1, scaled};
    params_layout_.push_back({{out_axis, in_axis}});
    params_layout_.push_back({{out_axis}});
    channels_ = out_features, channels_scaled_ = scaled;
    height_ = width_ = 1;
  }

  void require_nonempty() const {
    if (height_ < 1 || width_ < 1)
      throw std::invalid_argument("input " + shape_text(spec_) + " is too small for model arch '" +
                                  spec_.arch + "' (a layer's output would be " +
                                  std::to_string(height_) + "x" + std::to_string(width_) + ")");
  }

  const ModelSpec& spec_;
  int64_t channels_, height_, width_;
  bool channels_scaled_ = false;  // the input's channels are not a hidden width
  int64_t parameters_ = 0, buffers_ = 0, macs_ = 0;
  std::vector<StateTensor> params_layout_, buffers_layout_;
  std::vector<ConvSite> sites_;
  std::vector<FeatureTap> taps_;
  bool batchnorm_on_1x1_ = false;
};

// The layer lists; nets.cpp builds the same layers as torch modules.
// Taps: the stage outputs (after each conv stage's pool; each hidden layer of the MLP; each
// VGG block's pool; each ResNet stage).
// The cnn up to its 512-unit hidden layer (CarPe-FL's encoder shares it).
void walk_cnn_trunk(LayerWalk& net) {
  net.conv(32, 5, 0);
  net.maxpool2();
  net.tap();
  net.conv(64, 5, 0);
  net.maxpool2();
  net.tap();
  net.linear(512);
}

void walk_cnn(LayerWalk& net, int64_t classes) {
  walk_cnn_trunk(net);
  net.classifier(classes);
}

// cnn with a batch norm after each conv (the conv's bias dropped: the BN's shift replaces it),
// as DyRep's diverse-branch blocks assume a BN behind every conv they grow.
void walk_cnn_bn(LayerWalk& net, int64_t classes) {
  net.conv(32, 5, 0, 1, false);
  net.batchnorm();
  net.maxpool2();
  net.tap();
  net.conv(64, 5, 0, 1, false);
  net.batchnorm();
  net.maxpool2();
  net.tap();
  net.linear(512);
  net.classifier(classes);
}

void walk_lenet5(LayerWalk& net, int64_t classes) {
  net.conv(6, 5, 2);
  net.maxpool2();
  net.tap();
  net.conv(16, 5, 0);
  net.maxpool2();
  net.tap();
  net.linear(120);
  net.linear(84);
  net.classifier(classes);
}

void walk_mlp(LayerWalk& net, int64_t classes) {
  net.linear(200);
  net.tap();
  net.linear(200);
  net.tap();
  net.classifier(classes);
}

// The 2NN one hidden layer deeper: a second MLP depth for model-heterogeneous federations
// (UnifiedFL's MLPs differ by depth at one width).
void walk_mlp4(LayerWalk& net, int64_t classes) {
  for (int i = 0; i < 3; ++i) {
    net.linear(200);
    net.tap();
  }
  net.classifier(classes);
}

// The VGG-style nets (vgg_layout): conv3x3 (pad 1, bias) + BN + ReLU stages and maxpools, then
// the hidden fc layers and the classifier.
void walk_vgg(LayerWalk& net, int64_t classes, const VggLayout& layout) {
  for (int64_t c : layout.features) {
    if (c < 0) {
      net.maxpool2();
      net.tap();
      continue;
    }
    net.conv(c, 3, 1);
    net.batchnorm();
  }
  for (int64_t units : layout.hidden) net.linear(units);
  net.classifier(classes);
}
void walk_vgg11(LayerWalk& net, int64_t classes) { walk_vgg(net, classes, *vgg_layout("vgg11")); }
void walk_vgg8(LayerWalk& net, int64_t classes) { walk_vgg(net, classes, *vgg_layout("vgg8")); }
void walk_vgg5(LayerWalk& net, int64_t classes) { walk_vgg(net, classes, *vgg_layout("vgg5")); }
void walk_vgg7(LayerWalk& net, int64_t classes) { walk_vgg(net, classes, *vgg_layout("vgg7")); }
void walk_vgg9(LayerWalk& net, int64_t classes) { walk_vgg(net, classes, *vgg_layout("vgg9")); }

// The ResNets: a stem conv (no bias) + BN, for the torchvision stem a maxpool 3x3/2, then four
// stages of BasicBlocks (64, 128, 256, 512; stride 2 from the second stage on; 1x1 conv + BN
// shortcut where the shape changes), global average pool, fc out. nets.cpp builds the same.
void walk_resnet(LayerWalk& net, int64_t classes, int64_t stem_kernel, int64_t stem_stride, bool stem_pool,
                 int64_t blocks_per_stage) {
  net.conv(64, stem_kernel, stem_kernel / 2, stem_stride, false);
  net.batchnorm();
  if (stem_pool) net.maxpool(3, 2, 1);
  for (int64_t stage = 0; stage < 4; ++stage) {
    const int64_t channels = 64 << stage;
    for (int64_t block = 0; block < blocks_per_stage; ++block) {
      const int64_t stride = stage > 0 && block == 0 ? 2 : 1;
      const auto in = net.shape();
      net.conv(channels, 3, 1, stride, false);
      net.batchnorm();
      net.conv(channels, 3, 1, 1, false);
      net.batchnorm();
      if (stride != 1 || in.channels != net.shape().channels) net.projection_shortcut(in, stride);
    }
    net.tap();
  }
  net.global_avgpool();
  net.classifier(classes);
}

// ResNet-18, CIFAR variant (He et al. 2016 as in the widely used CIFAR code): conv3x3 stem,
// stride 1, no maxpool; two BasicBlocks per stage.
void walk_resnet18(LayerWalk& net, int64_t classes) { walk_resnet(net, classes, 3, 1, false, 2); }

// ResNet-10 as torchvision builds ResNets (FedSKD's network; the layout is inferred here from the
// model sizes the paper reports, see tests/test_model_cost.cpp): conv7x7 stride 2, maxpool 3x3
// stride 2, one BasicBlock per stage.
// c = 64 x width_multiplier (62/64 gives FedSKD's 62).
void walk_resnet10(LayerWalk& net, int64_t classes) { walk_resnet(net, classes, 7, 2, true, 1); }

// CarPe-FL's network (Shin et al. 2026; models/causal_layout.hpp): the cnn's trunk to a
// d-dimensional latent, node lifts, T graph-attention layers over the latent nodes, the
// client-private gate logits, a linear head over the flattened node features; buffers: the
// backbone, the cluster confidence and the gate balance. nets (causal_net.cpp) builds the same.
void walk_carpefl(LayerWalk& net, int64_t classes) {
  const int64_t d = kCausalNet.latents, h = kCausalNet.hidden;
  walk_cnn_trunk(net);
  net.latent(d);
  net.tensor({d, h});  // lift scale
  net.tensor({d, h});  // lift shift
  net.macs(d * h);
  for (int64_t t = 0; t < kCausalNet.layers; ++t) {
    net.tensor({h, h});  // W^(t)
    net.tensor({h});     // attention, source half
    net.tensor({h});     // attention, target half
    net.tensor({d, d});  // edge-indexed bias B^(t)
    net.macs(d * h * h + 2 * d * h + d * d * h);
  }
  net.tensor({d, d});  // gate logits rho
  net.tensor({d, d}, true);  // backbone G
  net.tensor({d, d}, true);  // cluster confidence cbar
  net.tensor({1}, true);     // gate balance beta
  net.features(d * h);
  net.classifier(classes);
}

using Walk = void (*)(LayerWalk&, int64_t classes);

// Each arch's layer walk, in kArchs' order (models/arch_names.hpp names them; tests/
// test_model_cost.cpp checks each arch's counts by hand).
constexpr Walk kWalks[] = {walk_cnn,  walk_cnn_bn, walk_lenet5, walk_mlp,      walk_mlp4,     walk_vgg11,  walk_vgg8,
                           walk_vgg5, walk_vgg7,   walk_vgg9,   walk_resnet18, walk_resnet10, walk_carpefl};
static_assert(std::size(kWalks) == kArchs.size(), "one layer walk per arch of models/arch_names.hpp");

// The index of `name` in kArchs.
size_t find_arch(const std::string& name) {
  for (size_t i = 0; i < kArchs.size(); ++i)
    if (kArchs[i].name == name) return i;
  std::string known;
  for (const std::string& n : known_archs()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown model arch '" + name + "' (known: " + known + ")");
}

// The walk of the layers `spec` describes, after checking `spec`.
LayerWalk walk_layers(const ModelSpec& spec) {
  const Walk walk_arch = kWalks[find_arch(spec.arch)];
  if (spec.channels < 1 || spec.height < 1 || spec.width < 1 || spec.num_classes < 1)
    throw std::invalid_argument("model arch '" + spec.arch + "' needs a positive input shape " +
                                "and class count, got " + shape_text(spec) + " with " +
                                std::to_string(spec.num_classes) + " classes");
  if (!(spec.width_multiplier > 0) || spec.width_multiplier > 4)
    throw std::invalid_argument("model arch '" + spec.arch + "': width_multiplier must be in (0, 4], got " +
                                std::to_string(spec.width_multiplier));
  LayerWalk walk(spec);
  walk_arch(walk, spec.num_classes);
  return walk;
}

}  // namespace

const VggLayout* vgg_layout(const std::string& arch) {
  // VGG11 with batch norm for 32x32 inputs (as UniFed's repo). The classifier's dropout is left
  // out: torch draws its masks from its process-global generator, which every worker thread
  // shares, so the masks (and results) would depend on thread timing.
  static const VggLayout vgg11{{64, -1, 128, -1, 256, 256, -1, 512, 512, -1, 512, 512, -1}, {4096, 4096}};
  // A VGG-style net for 28x28 inputs: three pools, so MNIST-sized images keep a 3x3 map.
  static const VggLayout vgg8{{32, 32, -1, 64, 64, -1, 128, 128, -1}, {256}};
  // One family in three depths (the number counts weight layers): each is the one below it
  // with two more conv layers of the same shape at 7x7, so a shallow model's layers are the
  // bottom of a deeper one's and every layer above its top has the top's shape (InclusiveFL's
  // layer sharing and momentum distillation, algorithms/inclusivefl/).
  static const VggLayout vgg5{{32, -1, 64, -1, 64, -1}, {256}};
  static const VggLayout vgg7{{32, -1, 64, -1, 64, 64, 64, -1}, {256}};
  static const VggLayout vgg9{{32, -1, 64, -1, 64, 64, 64, 64, 64, -1}, {256}};
  if (arch == "vgg11") return &vgg11;
  if (arch == "vgg8") return &vgg8;
  if (arch == "vgg5") return &vgg5;
  if (arch == "vgg7") return &vgg7;
  if (arch == "vgg9") return &vgg9;
  return nullptr;
}

std::string spec_label(const ModelSpec& spec) {
  if (spec.width_multiplier == 1.0) return spec.arch;
  std::ostringstream os;
  os << spec.arch << " x" << spec.width_multiplier;
  return os.str();
}

ModelCost model_cost(const ModelSpec& spec) { return walk_layers(spec).cost(); }

std::vector<StateTensor> state_layout(const ModelSpec& spec) { return walk_layers(spec).layout(); }

std::vector<ConvSite> conv_sites(const ModelSpec& spec) { return walk_layers(spec).conv_sites(); }

bool batchnorm_on_1x1(const ModelSpec& spec) { return walk_layers(spec).batchnorm_on_1x1(); }

std::vector<FeatureTap> feature_taps(const ModelSpec& spec) { return walk_layers(spec).taps(); }

double dbb_extra_flops(const ConvSite& s) {
  const int64_t out_px = s.out_h * s.out_w, in_px = s.in_h * s.in_w;
  // 1x1-kxk: a 1x1 conv (in -> in) at input resolution, then a KxK conv; 1x1-avg: a 1x1 conv
  // (in -> out) at input resolution, then average pooling (not counted).
  int64_t macs = s.in * s.in * in_px + s.out * s.in * s.kernel * s.kernel * out_px + s.out * s.in * in_px;
  if (2 * s.padding + 1 == s.kernel)  // the full mask adds 1x1, 1xK and Kx1 (identity: a BN only)
    macs += s.out * s.in * out_px + 2 * s.out * s.in * s.kernel * out_px;
  return 2.0 * double(macs);
}

std::vector<int> top_sites(const std::vector<double>& score, size_t sites, int k) {
  std::vector<int> order(sites);
  std::iota(order.begin(), order.end(), 0);
  if (score.size() == sites)
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return score[size_t(a)] > score[size_t(b)]; });
  order.resize(std::min(sites, size_t(std::max(k, 0))));
  return order;
}

const std::vector<std::string>& known_archs() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const ArchName& arch : kArchs) out.emplace_back(arch.name);
    return out;
  }();
  return names;
}

std::string arch_description(const std::string& arch) { return std::string(kArchs[find_arch(arch)].description); }

CausalNetParts causal_net_parts(const ModelSpec& spec) {
  if (spec.arch != "carpefl") throw std::invalid_argument("model arch '" + spec.arch + "' is not CarPe-FL's network");
  const std::vector<StateTensor> layout = state_layout(spec);
  std::vector<StateRange> ranges;
  int64_t offset = 0;
  for (const StateTensor& t : layout) {
    ranges.push_back({offset, t.numel()});
    offset += t.numel();
  }
  // Tensor order (walk_carpefl): 8 of the trunk, 2 lifts, 4 per layer, gate, 2 of the head, 3 buffers.
  const size_t layers = size_t(kCausalNet.layers), gate = 10 + 4 * layers;
  CausalNetParts parts;
  parts.shared.push_back({0, ranges[gate].offset});
  parts.encoder = {0, ranges[8].offset};
  parts.graph = {ranges[8].offset, ranges[gate].offset - ranges[8].offset};
  for (size_t t = 0; t < layers; ++t) parts.edges.push_back(ranges[10 + 4 * t + 3]);
  parts.gate = ranges[gate];
  parts.head = {ranges[gate + 1].offset, ranges[gate + 1].size + ranges[gate + 2].size};
  parts.backbone = ranges[gate + 3], parts.confidence = ranges[gate + 4], parts.balance = ranges[gate + 5];
  parts.total = offset;
  return parts;
}

}  // namespace fedgrid::models

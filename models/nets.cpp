// The torch networks behind model_cost()'s layer lists, and flat float32 (de)serialisation of
// their state for aggregation and payloads. Layers are registered in forward order, which fixes
// both the flatten_state() order and the order weights are drawn from torch's generator.
#include "models/nets.hpp"
#include "models/vgg_layout.hpp"

#include "models/causal_net.hpp"

#include <stdexcept>
#include <string>

namespace fedgrid::models {
namespace {

namespace nn = torch::nn;

GrowableConv conv5x5(int64_t in, int64_t out, int64_t padding) { return GrowableConv(in, out, 5, 1, padding, true); }

// Spatial size after a 5x5 conv and a floor maxpool 2; make_net() has already rejected
// inputs this would shrink below 1.
int64_t conv5x5_pool2(int64_t size, int64_t padding) { return (size + 2 * padding - 4) / 2; }

torch::Tensor pool(torch::Tensor x) { return torch::max_pool2d(x, 2); }

// Appends a stage output when the caller asked for taps.
const torch::Tensor& tap(const torch::Tensor& x, std::vector<torch::Tensor>* taps) {
  if (taps) taps->push_back(x);
  return x;
}

struct FedAvgCnn : Net {
  GrowableConv conv1{nullptr}, conv2{nullptr};
  nn::Linear fc1{nullptr}, fc2{nullptr};

  explicit FedAvgCnn(const ModelSpec& s) {
    const int64_t h = conv5x5_pool2(conv5x5_pool2(s.height, 0), 0);
    const int64_t w = conv5x5_pool2(conv5x5_pool2(s.width, 0), 0);
    conv1 = register_module("conv1", conv5x5(s.channels, s.scaled(32), 0));
    conv2 = register_module("conv2", conv5x5(s.scaled(32), s.scaled(64), 0));
    fc1 = register_module("fc1", nn::Linear(s.scaled(64) * h * w, s.scaled(512)));
    fc2 = register_module("fc2", nn::Linear(s.scaled(512), s.num_classes));
    growable = {conv1, conv2};
    classifier = fc2;
  }

  torch::Tensor run(torch::Tensor x, std::vector<torch::Tensor>* taps) override {
    x = tap(pool(torch::relu(conv1(x))), taps);
    x = tap(pool(torch::relu(conv2(x))), taps);
    return fc2(torch::relu(fc1(x.flatten(1))));
  }
};

// FedAvgCnn with a batch norm after each conv (walk_cnn_bn): a grown conv folds its branches'
// biases into the BN that follows it.
struct CnnBn : Net {
  GrowableConv conv1{nullptr}, conv2{nullptr};
  nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
  nn::Linear fc1{nullptr}, fc2{nullptr};

  explicit CnnBn(const ModelSpec& s) {
    const int64_t h = conv5x5_pool2(conv5x5_pool2(s.height, 0), 0);
    const int64_t w = conv5x5_pool2(conv5x5_pool2(s.width, 0), 0);
    conv1 = register_module("conv1", GrowableConv(s.channels, s.scaled(32), 5, 1, 0, false));
    bn1 = register_module("bn1", nn::BatchNorm2d(s.scaled(32)));
    conv2 = register_module("conv2", GrowableConv(s.scaled(32), s.scaled(64), 5, 1, 0, false));
    bn2 = register_module("bn2", nn::BatchNorm2d(s.scaled(64)));
    conv1->follower = bn1, conv2->follower = bn2;
    fc1 = register_module("fc1", nn::Linear(s.scaled(64) * h * w, s.scaled(512)));
    fc2 = register_module("fc2", nn::Linear(s.scaled(512), s.num_classes));
    growable = {conv1, conv2};
    classifier = fc2;
  }

  torch::Tensor run(torch::Tensor x, std::vector<torch::Tensor>* taps) override {
    x = tap(pool(torch::relu(bn1(conv1(x)))), taps);
    x = tap(pool(torch::relu(bn2(conv2(x)))), taps);
    return fc2(torch::relu(fc1(x.flatten(1))));
  }
};

struct LeNet5 : Net {
  GrowableConv conv1{nullptr}, conv2{nullptr};
  nn::Linear fc1{nullptr}, fc2{nullptr}, fc3{nullptr};

  explicit LeNet5(const ModelSpec& s) {
    const int64_t h = conv5x5_pool2(conv5x5_pool2(s.height, 2), 0);
    const int64_t w = conv5x5_pool2(conv5x5_pool2(s.width, 2), 0);
    conv1 = register_module("conv1", conv5x5(s.channels, s.scaled(6), 2));
    conv2 = register_module("conv2", conv5x5(s.scaled(6), s.scaled(16), 0));
    fc1 = register_module("fc1", nn::Linear(s.scaled(16) * h * w, s.scaled(120)));
    fc2 = register_module("fc2", nn::Linear(s.scaled(120), s.scaled(84)));
    fc3 = register_module("fc3", nn::Linear(s.scaled(84), s.num_classes));
    growable = {conv1, conv2};
    classifier = fc3;
  }

  torch::Tensor run(torch::Tensor x, std::vector<torch::Tensor>* taps) override {
    x = tap(pool(torch::relu(conv1(x))), taps);
    x = tap(pool(torch::relu(conv2(x))), taps);
    x = torch::relu(fc1(x.flatten(1)));
    return fc3(torch::relu(fc2(x)));
  }
};

// McMahan's 2NN (`hidden_layers` 2) and deeper MLPs of the same width: fc1, fc2, ... in order.
struct Mlp : Net {
  std::vector<nn::Linear> fcs;  // hidden layers, then the classifier

  Mlp(const ModelSpec& s, int hidden_layers) {
    int64_t width = int64_t{s.channels} * s.height * s.width;
    for (int i = 0; i < hidden_layers; ++i) {
      fcs.push_back(register_module("fc" + std::to_string(i + 1), nn::Linear(width, s.scaled(200))));
      width = s.scaled(200);
    }
    fcs.push_back(register_module("fc" + std::to_string(hidden_layers + 1), nn::Linear(width, s.num_classes)));
    classifier = fcs.back();
  }

  // A hidden layer's units tap as a units x 1 x 1 map.
  torch::Tensor run(torch::Tensor x, std::vector<torch::Tensor>* taps) override {
    x = x.flatten(1);
    for (size_t i = 0; i + 1 < fcs.size(); ++i) {
      x = torch::relu(fcs[i](x));
      if (taps) taps->push_back(x.view({x.size(0), x.size(1), 1, 1}));
    }
    return fcs.back()(x);
  }
};

GrowableConv conv3x3(int64_t in, int64_t out, int64_t stride, bool bias) {
  return GrowableConv(in, out, 3, stride, 1, bias);
}

// The VGG-style nets (models::vgg_layout): fc1, fc2, ... in order after the features.
struct Vgg : Net {
  nn::Sequential features{nullptr};
  std::vector<size_t> tap_after;  // indices of the pools in `features`: the stage outputs
  std::vector<nn::Linear> fcs;    // hidden fc layers, then the classifier

  Vgg(const ModelSpec& s, const VggLayout& layout) {
    features = register_module("features", nn::Sequential());
    int64_t in = s.channels, h = s.height, w = s.width;
    for (int64_t c : layout.features) {
      if (c < 0) {
        features->push_back(nn::MaxPool2d(nn::MaxPool2dOptions(2)));
        tap_after.push_back(features->size() - 1);
        h /= 2, w /= 2;
        continue;
      }
      c = s.scaled(c);
      growable.push_back(conv3x3(in, c, 1, true));
      features->push_back(growable.back());
      features->push_back(nn::BatchNorm2d(c));
      features->push_back(nn::Functional(torch::relu));
      in = c;
    }
    int64_t width = in * h * w;
    for (int64_t units : layout.hidden) {
      fcs.push_back(register_module("fc" + std::to_string(fcs.size() + 1), nn::Linear(width, s.scaled(units))));
      width = s.scaled(units);
    }
    fcs.push_back(register_module("fc" + std::to_string(fcs.size() + 1), nn::Linear(width, s.num_classes)));
    classifier = fcs.back();
  }

  torch::Tensor run(torch::Tensor x, std::vector<torch::Tensor>* taps) override {
    size_t layer = 0, next_tap = 0;
    for (auto& module : *features) {
      x = module.forward(x);
      if (next_tap < tap_after.size() && tap_after[next_tap] == layer++) tap(x, taps), ++next_tap;
    }
    x = x.flatten(1);
    for (size_t i = 0; i + 1 < fcs.size(); ++i) x = torch::relu(fcs[i](x));
    return fcs.back()(x);
  }
};

struct BasicBlock : nn::Module {
  GrowableConv conv1{nullptr}, conv2{nullptr};
  nn::Conv2d shortcut_conv{nullptr};
  nn::BatchNorm2d bn1{nullptr}, bn2{nullptr}, shortcut_bn{nullptr};

  BasicBlock(int64_t in, int64_t out, int64_t stride) {
    conv1 = register_module("conv1", conv3x3(in, out, stride, false));
    bn1 = register_module("bn1", nn::BatchNorm2d(out));
    conv2 = register_module("conv2", conv3x3(out, out, 1, false));
    bn2 = register_module("bn2", nn::BatchNorm2d(out));
    conv1->follower = bn1, conv2->follower = bn2;
    if (stride != 1 || in != out) {
      shortcut_conv = register_module("shortcut_conv", nn::Conv2d(nn::Conv2dOptions(in, out, 1).stride(stride).bias(false)));
      shortcut_bn = register_module("shortcut_bn", nn::BatchNorm2d(out));
    }
  }

  torch::Tensor forward(torch::Tensor x) {
    torch::Tensor y = bn2(conv2(torch::relu(bn1(conv1(x)))));
    return torch::relu(y + (shortcut_conv ? shortcut_bn(shortcut_conv(x)) : x));
  }
};

// The two ResNets: a stem (conv + BN, then a 3x3/2 maxpool for the torchvision stem), four
// stages of BasicBlocks at 64, 128, 256, 512 channels (stride 2 from the second stage on),
// global average pool, fc. model_cost's walk_resnet lists the same layers.
struct ResNetLayout {
  int64_t stem_kernel, stem_stride;
  bool stem_pool;
  int64_t blocks_per_stage;
};
constexpr ResNetLayout kResNet18{3, 1, false, 2};  // CIFAR variant
constexpr ResNetLayout kResNet10{7, 2, true, 1};   // torchvision layout (FedSKD)

struct ResNet : Net {
  ResNetLayout layout;
  GrowableConv stem{nullptr};
  nn::BatchNorm2d stem_bn{nullptr};
  std::vector<std::shared_ptr<BasicBlock>> blocks;
  nn::Linear fc{nullptr};

  ResNet(const ModelSpec& s, ResNetLayout l) : layout(l) {
    stem = register_module("stem", GrowableConv(s.channels, s.scaled(64), l.stem_kernel, l.stem_stride,
                                                l.stem_kernel / 2, false));
    stem_bn = register_module("stem_bn", nn::BatchNorm2d(s.scaled(64)));
    stem->follower = stem_bn;
    growable.push_back(stem);
    int64_t in = s.scaled(64);
    for (int64_t stage = 0; stage < 4; ++stage)
      for (int64_t block = 0; block < l.blocks_per_stage; ++block) {
        const int64_t out = s.scaled(64 << stage), stride = stage > 0 && block == 0 ? 2 : 1;
        blocks.push_back(register_module("block" + std::to_string(stage + 1) + "_" + std::to_string(block + 1),
                                         std::make_shared<BasicBlock>(in, out, stride)));
        growable.insert(growable.end(), {blocks.back()->conv1, blocks.back()->conv2});
        in = out;
      }
    fc = register_module("fc", nn::Linear(s.scaled(512), s.num_classes));
    classifier = fc;
  }

  // Taps: each stage's output (layer1..layer4), after its last block's ReLU.
  torch::Tensor run(torch::Tensor x, std::vector<torch::Tensor>* taps) override {
    x = torch::relu(stem_bn(stem(x)));
    if (layout.stem_pool) x = torch::max_pool2d(x, 3, 2, 1);
    for (size_t i = 0; i < blocks.size(); ++i) {
      x = blocks[i]->forward(x);
      if ((int64_t(i) + 1) % layout.blocks_per_stage == 0) tap(x, taps);
    }
    return fc(torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1));
  }
};

// Parameters then buffers: the layout flatten_state() and load_state() agree on.
std::vector<torch::Tensor> state_tensors(Net& net) {
  std::vector<torch::Tensor> tensors;
  for (const auto& item : net.named_parameters()) tensors.push_back(item.value());
  for (const auto& item : net.named_buffers()) tensors.push_back(item.value());
  return tensors;
}

}  // namespace

GrowableConvImpl::GrowableConvImpl(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t padding,
                                   bool bias)
    : in(in), out(out), kernel(kernel), stride(stride), padding(padding) {
  conv = register_module("conv", nn::Conv2d(nn::Conv2dOptions(in, out, kernel).stride(stride).padding(padding).bias(bias)));
}

torch::Tensor GrowableConvImpl::forward(const torch::Tensor& x) {
  return grown() ? block.forward(x) : conv->forward(x);
}

std::shared_ptr<Net> make_net(const ModelSpec& spec) {
  model_cost(spec);  // rejects unknown archs and too-small inputs with the cost model's messages
  if (spec.arch == "cnn") return std::make_shared<FedAvgCnn>(spec);
  if (spec.arch == "cnn_bn") return std::make_shared<CnnBn>(spec);
  if (spec.arch == "lenet5") return std::make_shared<LeNet5>(spec);
  if (spec.arch == "mlp") return std::make_shared<Mlp>(spec, 2);
  if (spec.arch == "mlp4") return std::make_shared<Mlp>(spec, 3);
  if (const VggLayout* vgg = vgg_layout(spec.arch)) return std::make_shared<Vgg>(spec, *vgg);
  if (spec.arch == "resnet18") return std::make_shared<ResNet>(spec, kResNet18);
  if (spec.arch == "resnet10") return std::make_shared<ResNet>(spec, kResNet10);
  if (spec.arch == "carpefl") return std::make_shared<CausalNet>(spec);
  throw std::logic_error("model arch '" + spec.arch + "' has a cost model but no torch net");
}

std::vector<float> flatten_state(Net& net) {
  std::vector<float> values;
  for (const torch::Tensor& tensor : state_tensors(net)) {
    const torch::Tensor flat = tensor.detach().to(torch::kCPU, torch::kFloat32).contiguous();
    const float* data = flat.data_ptr<float>();
    values.insert(values.end(), data, data + flat.numel());
  }
  return values;
}

void load_state(Net& net, const std::vector<float>& values) {
  const std::vector<torch::Tensor> tensors = state_tensors(net);
  int64_t expected = 0;
  for (const torch::Tensor& tensor : tensors) expected += tensor.numel();
  if (static_cast<int64_t>(values.size()) != expected)
    throw std::invalid_argument("load_state: got " + std::to_string(values.size()) +
                                " values but the model holds " + std::to_string(expected));
  // Copy in place under no_grad: the parameter tensors stay the same leaves (optimisers keep
  // pointing at them) and no autograd history is recorded.
  torch::NoGradGuard no_grad;
  int64_t offset = 0;
  for (const torch::Tensor& tensor : tensors) {
    // from_blob only wraps the caller's floats; copy_ reads them and never writes.
    const torch::Tensor source = torch::from_blob(const_cast<float*>(values.data()) + offset,
                                                  tensor.sizes(), torch::kFloat32);
    tensor.copy_(source);
    offset += tensor.numel();
  }
}

}  // namespace fedgrid::models

// Analytic model costs, computed from layer shapes alone so that timing and payload
// estimates never need torch. Each arch's layer list is written once (the walk_* functions)
// and drives both the parameter count and the FLOP count.
#include <stdexcept>
#include <string>
#include <vector>

#include "models/model_spec.hpp"

namespace fedgrid::models {
namespace {

std::string shape_text(const ModelSpec& spec) {
  return std::to_string(spec.channels) + "x" + std::to_string(spec.height) + "x" +
         std::to_string(spec.width);
}

// Follows the activation shape through a stack of layers, summing parameters and MACs.
// Biases add parameters but no FLOPs; activations and pooling add neither: the cost model
// counts only the multiply-adds of conv and linear layers, which dominate training time.
class LayerWalk {
 public:
  explicit LayerWalk(const ModelSpec& spec)
      : spec_(spec), channels_(spec.channels), height_(spec.height), width_(spec.width) {}

  void conv(int64_t out_channels, int64_t kernel, int64_t padding) {
    height_ += 2 * padding - kernel + 1;
    width_ += 2 * padding - kernel + 1;
    require_nonempty();
    const int64_t weights = out_channels * channels_ * kernel * kernel;
    parameters_ += weights + out_channels;
    macs_ += weights * height_ * width_;  // = Cout*Hout*Wout*Cin*K*K
    channels_ = out_channels;
  }

  void maxpool2() {  // kernel 2, stride 2, floor
    height_ /= 2;
    width_ /= 2;
    require_nonempty();
  }

  // Flattens whatever shape came before, as torch's x.flatten(1) does.
  void linear(int64_t out_features) {
    const int64_t in_features = channels_ * height_ * width_;
    parameters_ += in_features * out_features + out_features;
    macs_ += in_features * out_features;
    channels_ = out_features;
    height_ = width_ = 1;
  }

  ModelCost cost() const {
    // These nets hold no buffers (no batch norm), so state is exactly the parameters.
    return {.parameters = parameters_, .state_values = parameters_, .forward_flops = 2.0 * macs_};
  }

 private:
  void require_nonempty() const {
    if (height_ < 1 || width_ < 1)
      throw std::invalid_argument("input " + shape_text(spec_) + " is too small for model arch '" +
                                  spec_.arch + "' (a layer's output would be " +
                                  std::to_string(height_) + "x" + std::to_string(width_) + ")");
  }

  const ModelSpec& spec_;
  int64_t channels_, height_, width_;
  int64_t parameters_ = 0, macs_ = 0;
};

// The layer lists; nets.cpp builds the same layers as torch modules.
void walk_cnn(LayerWalk& net, int64_t classes) {
  net.conv(32, 5, 0);
  net.maxpool2();
  net.conv(64, 5, 0);
  net.maxpool2();
  net.linear(512);
  net.linear(classes);
}

void walk_lenet5(LayerWalk& net, int64_t classes) {
  net.conv(6, 5, 2);
  net.maxpool2();
  net.conv(16, 5, 0);
  net.maxpool2();
  net.linear(120);
  net.linear(84);
  net.linear(classes);
}

void walk_mlp(LayerWalk& net, int64_t classes) {
  net.linear(200);
  net.linear(200);
  net.linear(classes);
}

struct Arch {
  std::string name;
  std::string description;
  void (*walk)(LayerWalk&, int64_t classes);
};

const std::vector<Arch>& archs() {
  static const std::vector<Arch> table = {
      {"cnn", "McMahan et al. 2017 FedAvg CNN: 2x (conv5x5 32/64, ReLU, maxpool2), fc 512, fc out",
       walk_cnn},
      {"lenet5", "LeNet-5 with ReLU: conv5x5 6 (pad 2), pool, conv5x5 16, pool, fc 120, 84, out",
       walk_lenet5},
      {"mlp", "McMahan et al. 2017 2NN: fc 200, ReLU, fc 200, ReLU, fc out", walk_mlp},
  };
  return table;
}

const Arch& find_arch(const std::string& name) {
  for (const Arch& arch : archs())
    if (arch.name == name) return arch;
  std::string known;
  for (const std::string& n : known_archs()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown model arch '" + name + "' (known: " + known + ")");
}

}  // namespace

ModelCost model_cost(const ModelSpec& spec) {
  const Arch& arch = find_arch(spec.arch);
  if (spec.channels < 1 || spec.height < 1 || spec.width < 1 || spec.num_classes < 1)
    throw std::invalid_argument("model arch '" + spec.arch + "' needs a positive input shape " +
                                "and class count, got " + shape_text(spec) + " with " +
                                std::to_string(spec.num_classes) + " classes");
  LayerWalk walk(spec);
  arch.walk(walk, spec.num_classes);
  return walk.cost();
}

const std::vector<std::string>& known_archs() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Arch& arch : archs()) out.push_back(arch.name);
    return out;
  }();
  return names;
}

std::string arch_description(const std::string& arch) { return find_arch(arch).description; }

}  // namespace fedgrid::models

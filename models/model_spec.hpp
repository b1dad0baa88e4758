#pragma once
// What a model is, without torch: its architecture name and input/output shape, its exact
// parameter count and payload size, and its analytic FLOPs. Cheap to include anywhere.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace fedgrid::models {

struct ModelSpec {
  std::string arch;  // cnn | lenet5 | mlp | vgg11 | resnet18
  int channels = 1, height = 28, width = 28;  // input image
  int num_classes = 10;
  // Scales every hidden layer's channels/units to ceil(m * base) (HeteroFL's model rate); the
  // input channels and the class count never scale.
  double width_multiplier = 1.0;
  int64_t scaled(int64_t base) const {
    return std::max<int64_t>(1, int64_t(std::ceil(width_multiplier * double(base) - 1e-9)));
  }
  bool operator==(const ModelSpec&) const = default;
};

// "cnn", or "cnn x0.5" when the width is scaled: for logs, keys and error messages.
std::string spec_label(const ModelSpec& spec);

struct ModelCost {
  int64_t parameters = 0;         // trainable scalars (weights + biases)
  int64_t state_values = 0;       // everything a model's state holds (parameters + buffers)
  double forward_flops = 0;       // per sample; a multiply-add counts 2, activations/pooling not counted
  double train_flops() const { return 3.0 * forward_flops; }  // backward counted as 2x forward
};

// Fixed header added to every model message (ids, round, shape tag), in bytes.
inline constexpr int64_t kPayloadHeaderBytes = 64;

// Exact bytes on the wire: every float32 state value plus the header.
inline int64_t payload_bytes(const ModelCost& c) { return c.state_values * 4 + kPayloadHeaderBytes; }

// Throws std::invalid_argument for an unknown arch or an input too small for it.
ModelCost model_cost(const ModelSpec& spec);

// The layout of a model's flat state (parameters, then buffers, in the order flatten_state()
// writes them): one entry per tensor, its axes outermost first. Sub-model extraction (HeteroFL,
// FedRolex) maps each axis of a narrow model onto the wide one.
struct StateAxis {
  int64_t channels = 1;  // entries along the axis = channels * block
  int64_t block = 1;     // flattened positions per channel (a linear layer after a conv)
  bool scaled = false;   // a hidden width, which shrinks with width_multiplier
};
struct StateTensor {
  std::vector<StateAxis> axes;  // empty: a scalar (batch norm's batch counter)
  bool batchnorm = false;       // a batch norm's weight, bias or statistic (FedBN keeps these local)
  int64_t numel() const {
    int64_t n = 1;
    for (const auto& a : axes) n *= a.channels * a.block;
    return n;
  }
};
std::vector<StateTensor> state_layout(const ModelSpec& spec);

// A stage output that feature distillation can tap (FedSKD's layer1..layer4 of a ResNet):
// its channels and map size per sample. Taps are in forward order; nets.cpp returns the same
// tensors from Net::forward_taps.
struct FeatureTap {
  int64_t channels = 1, height = 1, width = 1;
};
std::vector<FeatureTap> feature_taps(const ModelSpec& spec);

// A KxK convolution (K > 1): where DynamicFL can grow a diverse-branch block.
struct ConvSite {
  int64_t in = 1, out = 1, kernel = 3, stride = 1, padding = 0;
  int64_t in_h = 1, in_w = 1, out_h = 1, out_w = 1;
  bool bias = true;  // false: a batch norm follows and absorbs the fused bias
};
std::vector<ConvSite> conv_sites(const ModelSpec& spec);  // in forward order
// Whether a batch norm normalises a 1x1 map (e.g. resnet10 on 16x16): in training it then needs
// at least two samples per batch.
bool batchnorm_on_1x1(const ModelSpec& spec);
// Forward FLOPs per sample that DyRep's default diverse-branch block adds over the plain conv
// at `site` (the branches of models/dbb.hpp's default_branches; batch norms not counted).
double dbb_extra_flops(const ConvSite& site);
// The `k` of `sites` conv sites that `score` ranks highest, best first (ties: the earlier
// site); a score of the wrong length (no history yet) ranks the sites in order.
std::vector<int> top_sites(const std::vector<double>& score, size_t sites, int k);

const std::vector<std::string>& known_archs();
std::string arch_description(const std::string& arch);

}  // namespace fedgrid::models

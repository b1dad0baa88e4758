#pragma once
// What a model is, without torch: its architecture name and input/output shape, its exact
// parameter count and payload size, and its analytic FLOPs. Cheap to include anywhere.
#include <cstdint>
#include <string>
#include <vector>

namespace fedgrid::models {

struct ModelSpec {
  std::string arch;  // cnn | lenet5 | mlp
  int channels = 1, height = 28, width = 28;
  int num_classes = 10;
  bool operator==(const ModelSpec&) const = default;
};

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

const std::vector<std::string>& known_archs();
std::string arch_description(const std::string& arch);

}  // namespace fedgrid::models

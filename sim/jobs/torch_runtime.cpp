// The torch runtime behind compute.hpp's torch-free declarations: devices, initial weights,
// per-worker thread set-up, version.
#include <torch/torch.h>

#include "models/nets.hpp"
#include "sim/jobs/compute.hpp"

namespace fedgrid {

std::vector<float> initial_weights(const models::ModelSpec& spec, uint64_t seed) {
  torch::manual_seed(seed);
  auto net = models::make_net(spec);
  return models::flatten_state(*net);
}

bool cuda_available() { return torch::cuda::is_available(); }

ComputeDevice resolve_device(const std::string& setting) {
  if (setting == "cpu") return ComputeDevice::Cpu;
  if (cuda_available()) return ComputeDevice::Cuda;
  if (setting == "cuda")
    throw std::runtime_error("no CUDA device visible to this LibTorch build (Debian's LibTorch is CPU-only; "
                             "build against a CUDA LibTorch, see README 'GPU')");
  return ComputeDevice::Cpu;
}

void init_torch_worker(int intra_op_threads) { torch::set_num_threads(std::max(1, intra_op_threads)); }

std::string torch_version() { return TORCH_VERSION; }

}  // namespace fedgrid

// The torch runtime behind compute.hpp's torch-free declarations: devices, initial weights,
// determinism, per-worker thread set-up. Loaded with LibTorch (torch_module.hpp).
#include <ATen/autocast_mode.h>
#include <torch/torch.h>

#include <cstdlib>

#include "models/nets.hpp"
#include "sim/jobs/compute.hpp"

namespace fedgrid {

std::vector<float> initial_weights(const models::ModelSpec& spec, uint64_t seed) {
  torch::manual_seed(seed);
  auto net = models::make_net(spec);
  return models::flatten_state(*net);
}

bool cuda_available() { return torch::cuda::is_available(); }

ComputeDevice resolve_device(DeviceChoice choice) {
  if (choice == DeviceChoice::Cpu) return ComputeDevice::Cpu;
  if (cuda_available()) return ComputeDevice::Cuda;
  if (choice == DeviceChoice::Cuda)
    throw std::runtime_error("no CUDA device visible to this LibTorch build (Debian's LibTorch is CPU-only; "
                             "build against a CUDA LibTorch: docs/guide/gpu.md)");
  return ComputeDevice::Cpu;
}

void configure_determinism(ComputeDevice device, bool deterministic) {
  if (device != ComputeDevice::Cuda) return;
  // cuBLAS reads its workspace setting when LibTorch creates its first handle (the first
  // matrix product on the GPU): this runs before any job. ":4096:8" is what cuBLAS documents
  // for reproducible results (8 buffers of 4 MiB); a user's own setting is kept.
  if (deterministic) setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8", /*overwrite=*/0);
  auto& context = at::globalContext();
  context.setDeterministicAlgorithms(deterministic, /*warn_only=*/false);
  context.setDeterministicCuDNN(deterministic);
  context.setBenchmarkCuDNN(!deterministic);
}

void in_precision(Precision p, const std::function<void()>& body) {
  if (p == Precision::Fp32) return body();
  // Restored however body ends: the worker thread runs the next job in its own precision.
  // No cast cache: autocast keeps a weight's bf16 copy until the region ends, and a job's
  // region spans every optimiser step, so cached copies would train on stale weights.
  struct Autocast {
    const bool cache = at::autocast::is_autocast_cache_enabled();
    Autocast() {
      at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
      at::autocast::set_autocast_cache_enabled(false);
      at::autocast::set_cpu_enabled(true);
    }
    ~Autocast() { at::autocast::set_cpu_enabled(false), at::autocast::set_autocast_cache_enabled(cache); }
  } autocast;
  body();
}

void init_torch_worker(int intra_op_threads) { torch::set_num_threads(std::max(1, intra_op_threads)); }

}  // namespace fedgrid

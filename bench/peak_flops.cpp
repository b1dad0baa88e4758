// This machine's peak single-precision FLOP/s as LibTorch reaches it: the best of several
// large matrix products (torch::mm, the BLAS fedgrid's training uses), on every core and on
// one, to set against perf.json's training_flops_per_s. Where LibTorch sees a GPU, its peak
// too: fp32 (TF32 off, what fedgrid trains in by default) and with TF32 allowed, each timed
// over ten products between two synchronisations.
// Usage: peak_flops [N=4096] [REPEATS=5]
#include <torch/cuda.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace {

double best_gflops(int64_t n, int repeats, int threads) {
  torch::set_num_threads(threads);
  torch::manual_seed(1);
  const torch::Tensor a = torch::rand({n, n}), b = torch::rand({n, n});
  torch::Tensor c = torch::mm(a, b);  // warm-up: threads started, pages touched
  double best = 0;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    torch::mm_out(c, a, b);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, 2.0 * double(n) * double(n) * double(n) / s / 1e9);
  }
  return best;
}

// The GPU's best over `repeats` timings of 10 products each. torch::mm on CUDA only queues the
// kernels: each timing waits for the GPU before and after.
double best_gflops_cuda(int64_t n, int repeats, bool tf32) {
  // "highest": float32 products in float32; "high": TF32 tensor cores allowed.
  at::globalContext().setFloat32MatmulPrecision(tf32 ? "high" : "highest");
  torch::manual_seed(1);
  const auto on_gpu = torch::TensorOptions().device(torch::kCUDA).dtype(torch::kFloat32);
  const torch::Tensor a = torch::rand({n, n}, on_gpu), b = torch::rand({n, n}, on_gpu);
  torch::Tensor c = torch::mm(a, b);  // warm-up: cuBLAS handle, kernel choice
  constexpr int kPerTiming = 10;
  double best = 0;
  for (int r = 0; r < repeats; ++r) {
    torch::cuda::synchronize();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kPerTiming; ++i) torch::mm_out(c, a, b);
    torch::cuda::synchronize();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, kPerTiming * 2.0 * double(n) * double(n) * double(n) / s / 1e9);
  }
  at::globalContext().setFloat32MatmulPrecision("highest");
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t n = argc > 1 ? std::atoll(argv[1]) : 4096;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  std::printf("torch::mm %lldx%lld float32, best of %d\n", (long long)n, (long long)n, repeats);
  std::printf("%d threads: %.1f GFLOP/s\n", cores, best_gflops(n, repeats, cores));
  if (cores > 1) std::printf("1 thread: %.1f GFLOP/s\n", best_gflops(n, repeats, 1));
  if (torch::cuda::is_available()) {
    const double fp32 = best_gflops_cuda(n, repeats, false), tf32 = best_gflops_cuda(n, repeats, true);
    std::printf("cuda: %.1f GFLOP/s fp32, %.1f GFLOP/s tf32\n", fp32, tf32);
  }
  return 0;
}

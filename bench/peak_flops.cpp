// This machine's peak single-precision FLOP/s as LibTorch reaches it: the best of several
// large matrix products (torch::mm, the BLAS fedgrid's training uses), on every core and on
// one, to set against perf.json's training_flops_per_s.
// Usage: peak_flops [N=4096] [REPEATS=5]
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

}  // namespace

int main(int argc, char** argv) {
  const int64_t n = argc > 1 ? std::atoll(argv[1]) : 4096;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  std::printf("torch::mm %lldx%lld float32, best of %d\n", (long long)n, (long long)n, repeats);
  std::printf("%d threads: %.1f GFLOP/s\n", cores, best_gflops(n, repeats, cores));
  if (cores > 1) std::printf("1 thread: %.1f GFLOP/s\n", best_gflops(n, repeats, 1));
  return 0;
}

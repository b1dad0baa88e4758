#include "sim/jobs/step_timer.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "sim/jobs/epoch_loop.hpp"

namespace fedgrid {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Times `one` in blocks long enough for the clock (block_s), until the blocks agree (spread)
// or the plan's limits; returns the per-call seconds of every block.
template <class F>
std::vector<double> repeat_blocks(const TimerPlan& plan, F&& one) {
  one();  // warm-up: first-call allocations and kernel selection
  int per_block = 1;
  for (;;) {  // size the block
    const auto t = Clock::now();
    for (int i = 0; i < per_block; ++i) one();
    if (seconds_since(t) >= plan.block_s || per_block >= 1 << 16) break;
    per_block *= 2;
  }
  std::vector<double> blocks;
  const auto start = Clock::now();
  while (int(blocks.size()) < plan.max_repeats) {
    const auto t = Clock::now();
    for (int i = 0; i < per_block; ++i) one();
    blocks.push_back(seconds_since(t) / per_block);
    if (int(blocks.size()) < plan.min_repeats) continue;
    const double m = median(blocks), lo = *std::min_element(blocks.begin(), blocks.end());
    if ((m - lo) / m <= plan.spread || seconds_since(start) > plan.budget_s) break;
  }
  return blocks;
}

}  // namespace

StepTiming time_steps(const models::ModelSpec& spec, int64_t batch, int threads, const OptimizerConfig& optimizer,
                      ComputeDevice device, const TimerPlan& plan) {
  torch::set_num_threads(std::max(1, threads));
  torch::manual_seed(1);
  const torch::Device where = jobs::torch_device(device);
  auto net = models::make_net(spec);
  net->to(where);
  auto opt = jobs::make_optimizer(net->parameters(), optimizer);
  // A pool of random samples, gathered batch by batch as the epoch loop gathers them.
  const int64_t pool = 4 * batch;
  const torch::Tensor images = torch::randn({pool, spec.channels, spec.height, spec.width}).to(where);
  const torch::Tensor labels = torch::randint(spec.num_classes, {pool}, torch::kInt64).to(where);
  int64_t next = 0;
  auto gather = [&] {
    const torch::Tensor idx = torch::arange(next, next + batch, torch::kInt64).to(where);
    next = (next + batch) % (pool - batch + 1);
    return std::pair{images.index_select(0, idx), labels.index_select(0, idx)};
  };

  StepTiming out;
  net->train();
  auto train = repeat_blocks(plan, [&] {
    const auto [x, y] = gather();
    opt->zero_grad();
    const torch::Tensor loss = torch::nn::functional::cross_entropy(net->forward(x), y);
    loss.backward();
    opt->step();
    (void)loss.item<double>();
  });
  net->eval();
  torch::NoGradGuard no_grad;
  auto eval = repeat_blocks(plan, [&] {
    const auto [x, y] = gather();
    (void)net->forward(x).argmax(1).sum().item<int64_t>();
  });
  net->train();
  out.train_step_s = median(train);
  out.train_step_min_s = *std::min_element(train.begin(), train.end());
  out.eval_sample_s = median(eval) / double(batch);
  out.eval_sample_min_s = *std::min_element(eval.begin(), eval.end()) / double(batch);
  out.repeats = int(train.size());
  out.spread = (out.train_step_s - out.train_step_min_s) / out.train_step_s;
  return out;
}

}  // namespace fedgrid

#include "sim/jobs/calibration/step_timer.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <utility>
#include <vector>

#include "sim/jobs/training/epoch_loop.hpp"

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

namespace {

// One model and batch size ready to step: the training step and the evaluation of one batch,
// on a pool of random samples gathered batch by batch as the epoch loop gathers them.
class StepBench {
 public:
  StepBench(const models::ModelSpec& spec, int64_t batch, int threads, const OptimizerConfig& optimizer,
            ComputeDevice device)
      : batch_(batch), where_(jobs::torch_device(device)) {
    torch::set_num_threads(std::max(1, threads));
    torch::manual_seed(1);
    net_ = models::make_net(spec);
    net_->to(where_);
    opt_ = std::make_unique<jobs::LocalOptimizer>(net_->parameters(), optimizer);
    const int64_t pool = 4 * batch;
    images_ = torch::randn({pool, spec.channels, spec.height, spec.width}).to(where_);
    labels_ = torch::randint(spec.num_classes, {pool}, torch::kInt64).to(where_);
  }
  void train_step() {
    net_->train();
    const auto [x, y] = gather();
    opt_->zero_grad();
    const torch::Tensor loss = torch::nn::functional::cross_entropy(net_->forward(x), y);
    loss.backward();
    opt_->step();
    (void)loss.item<double>();
  }
  void eval_batch() {
    net_->eval();
    torch::NoGradGuard no_grad;
    const auto [x, y] = gather();
    (void)net_->forward(x).argmax(1).sum().item<int64_t>();
  }
  int64_t batch() const { return batch_; }

 private:
  std::pair<torch::Tensor, torch::Tensor> gather() {
    const int64_t pool = images_.size(0);
    const torch::Tensor idx = torch::arange(next_, next_ + batch_, torch::kInt64).to(where_);
    next_ = (next_ + batch_) % (pool - batch_ + 1);
    return {images_.index_select(0, idx), labels_.index_select(0, idx)};
  }
  int64_t batch_, next_ = 0;
  torch::Device where_;
  std::shared_ptr<models::Net> net_;
  std::unique_ptr<jobs::LocalOptimizer> opt_;
  torch::Tensor images_, labels_;
};

// Per-call seconds of `one` in blocks of about `block_s`, from now until `until`: a time
// window, so that copies started together stay in step (what each meets is the others' load).
// Returns (total seconds, calls) and the per-call seconds of each block.
template <class F>
std::pair<double, std::vector<double>> window_blocks(Clock::time_point until, double block_s, F&& one) {
  std::vector<double> blocks;
  double total = 0;
  int64_t calls = 0;
  while (Clock::now() < until || calls == 0) {
    const auto t = Clock::now();
    int64_t n = 0;
    do {
      one();
      ++n;
    } while (seconds_since(t) < block_s && Clock::now() < until);
    const double s = seconds_since(t);
    blocks.push_back(s / double(n));
    total += s, calls += n;
  }
  return {total / double(calls), blocks};
}

// The figures of a measurement: the training step's `train_s` and the evaluation's `eval_s`
// (per batch) with the per-call seconds of their blocks.
StepTiming timing_of(double train_s, const std::vector<double>& train, double eval_s, const std::vector<double>& eval,
                     int64_t batch) {
  StepTiming out;
  out.train_step_s = train_s;
  out.train_step_min_s = *std::min_element(train.begin(), train.end());
  out.eval_sample_s = eval_s / double(batch);
  out.eval_sample_min_s = *std::min_element(eval.begin(), eval.end()) / double(batch);
  out.repeats = int(train.size());
  out.spread = (out.train_step_s - out.train_step_min_s) / out.train_step_s;
  return out;
}

}  // namespace

StepTiming time_steps(const models::ModelSpec& spec, int64_t batch, int threads, const OptimizerConfig& optimizer,
                      ComputeDevice device, const TimerPlan& plan) {
  StepBench bench(spec, batch, threads, optimizer, device);
  const auto train = repeat_blocks(plan, [&] { bench.train_step(); });
  const auto eval = repeat_blocks(plan, [&] { bench.eval_batch(); });
  return timing_of(median(train), train, median(eval), eval, batch);
}

StepTiming time_steps_in_window(const models::ModelSpec& spec, int64_t batch, int threads,
                                const OptimizerConfig& optimizer, ComputeDevice device, const StepWindow& w) {
  StepBench bench(spec, batch, threads, optimizer, device);
  do bench.train_step();  // warm-up: first-call allocations, the heap at its steady size
  while (Clock::now() < w.warm_until);
  const auto [train_s, train] = window_blocks(w.train_until, w.block_s, [&] { bench.train_step(); });
  const auto [eval_s, eval] = window_blocks(w.eval_until, w.block_s, [&] { bench.eval_batch(); });
  return timing_of(train_s, train, eval_s, eval, batch);
}

}  // namespace fedgrid

#pragma once
// Measures this machine for `fedgrid calibrate`: the real seconds of one training step (forward,
// cross-entropy, backward, optimiser step) and of evaluating one sample, for a model and batch
// size, on random inputs. Torch-free interface; step_timer.cpp holds the torch side.
#include <chrono>
#include <cstdint>

#include "models/model_spec.hpp"
#include "sim/jobs/compute.hpp"

namespace fedgrid {

struct StepTiming {
  double train_step_s = 0, train_step_min_s = 0;    // median, minimum over the repeats
  double eval_sample_s = 0, eval_sample_min_s = 0;  // per sample, forward in eval mode, no grad
  int repeats = 0;
  double spread = 0;  // (median - min) / median of the training step (in a window: mean for median)
};

struct TimerPlan {
  int min_repeats = 5, max_repeats = 30;
  double spread = 0.02;         // stop once (median - min) / median is at most this
  double block_s = 0.05;        // each repeat times enough steps to last at least this long
  double budget_s = 20;         // most seconds spent on one (model, batch size)
};

// Times inside fixed windows of the steady clock (CLOCK_MONOTONIC, the same in every process):
// training steps until train_until after a warm-up until warm_until, then evaluation until
// eval_until. Copies of a calibration under load start from the same instants and so measure
// one another's load throughout. Figures are means over the window (the total time divided by
// the steps: what a long job pays, throttled periods included); min over blocks of block_s.
struct StepWindow {
  std::chrono::steady_clock::time_point warm_until, train_until, eval_until;
  double block_s = 0.25;
};

// Runs on the calling thread with `threads` intra-op threads (the job's training.threads_per_worker).
StepTiming time_steps(const models::ModelSpec& spec, int64_t batch, int threads, const OptimizerConfig& optimizer,
                      ComputeDevice device, const TimerPlan& plan = {});
StepTiming time_steps_in_window(const models::ModelSpec& spec, int64_t batch, int threads,
                                const OptimizerConfig& optimizer, ComputeDevice device, const StepWindow& window);

}  // namespace fedgrid

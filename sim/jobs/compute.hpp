#pragma once
// The compute side's torch-free vocabulary: devices, optimiser settings, what a training or
// evaluation job returns, the batch plan every job and its charge follow, and the torch
// runtime set-up. Each job rebuilds its model from flat weights on its worker thread (modules
// are cached per thread and architecture), so jobs share nothing.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "data/dataset.hpp"
#include "models/model_spec.hpp"
#include "sim/core/modes.hpp"

namespace fedgrid {

struct OptimizerConfig {
  Optimizer kind = Optimizer::Sgd;
  double lr = 0.01, momentum = 0.9, weight_decay = 0;
  double beta1 = 0.9, beta2 = 0.999;  // Adam's and AdamW's (torch's defaults)
};

// Where LibTorch computes: training.device resolved once per run (resolve_device).
enum class ComputeDevice { Cpu, Cuda };

// Whether this CPU computes bfloat16 natively (AVX-512 BF16); without it LibTorch emulates
// bf16 slower than fp32, so training.precision: bf16 is refused.
bool cpu_has_bf16();
// Runs `body` on this thread with training.precision in force (autocast is thread-local
// state: set and cleared around each job on its worker thread).
void in_precision(Precision p, const std::function<void()>& body);

struct TrainOutcome {
  std::vector<float> weights;
  double mean_loss = 0;  // over all mini-batches, weighted by batch size
  int64_t steps = 0;
  int epochs = 0;                    // epochs trained (the rule's count for a dynamic job)
  std::vector<double> batch_losses;  // every mini-batch's loss, in order
};

struct EvalOutcome {
  double accuracy = 0, loss = 0;
  int64_t samples = 0;
  std::vector<int64_t> confusion;  // classes x classes: [true * classes + predicted]
  std::optional<double> auc;       // macro one-vs-rest on the softmax scores (sim/jobs/evaluation/metrics.hpp)
};

// The mini-batch sizes a job over `n` samples trains, in order: `epochs` passes, or with
// steps > 0 exactly `steps` batches over as many passes as that takes. A pass's trailing batch
// of one is left out when `drop_single` (a batch norm on a 1x1 map, models::batchnorm_on_1x1).
// The trainer follows the same plan; the simulation charges it.
std::vector<int64_t> batch_plan(int64_t n, int64_t batch, int epochs, int64_t steps, bool drop_single);
// Passes a plan begins over n samples (hospitals.csv's epochs for a job counted in steps).
int passes_begun(int64_t n, int64_t batch, int64_t steps, bool drop_single);
// `indices` null = the whole dataset.
EvalOutcome run_evaluation(const models::ModelSpec& spec, const std::vector<float>& weights,
                           const data::Dataset& dataset, const data::Indices* indices,
                           ComputeDevice device = ComputeDevice::Cpu);

// Evaluation scores in batches of this many samples: 1,000 on a CPU, 8,192 on a GPU, where
// small batches leave it waiting on kernel launches. A batch's loss is summed in float, so the
// figures depend on it: it is fixed per device, and parallel evaluation splits only at batch
// boundaries.
constexpr int64_t eval_batch(ComputeDevice device) { return device == ComputeDevice::Cuda ? 8192 : 1000; }

// The batches of part of an evaluation, kept apart so that parts scored on different threads
// combine into exactly the figures of one pass (combine_evaluation).
struct EvalPart {
  std::vector<double> batch_losses;  // each batch's summed cross-entropy, in order
  int64_t correct = 0;
  std::vector<int64_t> confusion;    // classes x classes
  std::vector<float> probabilities;  // samples x classes (softmax)
  std::vector<int64_t> labels;
};
// Samples [first, first + count) of the evaluated ones (`indices`, or the whole dataset when
// null); `first` is a multiple of eval_batch(device).
EvalPart run_evaluation_part(const models::ModelSpec& spec, const std::vector<float>& weights,
                             const data::Dataset& dataset, const data::Indices* indices, int64_t first, int64_t count,
                             ComputeDevice device = ComputeDevice::Cpu);
// Parts in sample order -> the outcome of scoring all their samples in one pass: losses are
// added batch after batch from zero, as one pass adds them.
EvalOutcome combine_evaluation(const std::vector<EvalPart>& parts, int classes);

// training.device -> a device: auto is cuda when this LibTorch build sees a GPU, else cpu.
// Throws std::runtime_error for cuda when there is none.
ComputeDevice resolve_device(DeviceChoice choice);
bool cuda_available();

// training.deterministic, once per run before any job. On CUDA, true: deterministic algorithms
// only (an op without one throws), deterministic cuDNN without benchmark mode, and the cuBLAS
// workspace that needs (CUBLAS_WORKSPACE_CONFIG=:4096:8, unless already set), so two runs on one
// GPU give the same bytes; false: cuDNN benchmarks and picks the fastest kernels, whose sums may
// differ run to run. The CPU's kernels are deterministic already: nothing changes there.
void configure_determinism(ComputeDevice device, bool deterministic);

// Initial weights, drawn from torch's generator after seeding it. Call from one thread, before
// any job runs: torch's default generator is one global object that concurrent jobs would
// draw from in an order set by thread timing.
std::vector<float> initial_weights(const models::ModelSpec& spec, uint64_t seed);

// Per worker thread: fixes torch's intra-op thread count for that thread.
void init_torch_worker(int intra_op_threads);

// LibTorch's CPU blocks of 1 MiB and more are kept for reuse (up to 512 MiB, oldest dropped
// first) instead of going back to the system and being page-faulted in afresh by the next
// batch (sim/jobs/block_cache.cpp). Install once, before the jobs; release to drop what is kept
// (after an evaluation, so the peak memory of a run stays what its work needs).
void cache_large_blocks();
void release_cached_blocks();

// Versions for summary.json.
std::string torch_version();

}  // namespace fedgrid

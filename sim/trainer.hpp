#pragma once
// Real LibTorch work, behind a torch-free interface: training and evaluation jobs the
// executor runs. Each job rebuilds the model from its flat weights on the worker thread
// (modules are cached per thread and per architecture), so jobs share nothing.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "data/dataset.hpp"
#include "models/model_spec.hpp"
#include "sim/model.hpp"

namespace fedgrid {

struct OptimizerConfig {
  std::string name = "sgd";  // sgd | adam
  double lr = 0.01, momentum = 0.9, weight_decay = 0;
};

// Where LibTorch computes: training.device resolved once per run (resolve_device).
enum class ComputeDevice { Cpu, Cuda };

// Validation-based stopping (UniFed's "dynamic update", after Prechelt's early stopping):
// after every epoch the loss on `validation` is measured; training stops once it has not
// improved by more than `min_delta` for `patience` epochs in a row, or after `max_epochs`,
// and the job returns the weights of its best validation epoch.
struct DynamicStop {
  const data::Indices* validation = nullptr;
  int patience = 7, max_epochs = 50;
  double min_delta = 0.0;
};

struct TrainJob {
  models::ModelSpec spec;
  const std::vector<float>* weights = nullptr;  // the starting state; the caller keeps it alive
                                                // until the job's result is taken (no copy per job)
  const data::Dataset* dataset = nullptr;
  const data::Indices* indices = nullptr;  // samples to train on
  int epochs = 1;
  int batch_size = 32;
  OptimizerConfig optimizer;
  uint64_t seed = 0;  // shuffling order of every epoch
  ComputeDevice device = ComputeDevice::Cpu;
  double prox_mu = 0;  // FedProx: adds (mu / 2) * ||w - w_start||^2 over the parameters
  std::optional<DynamicStop> dynamic;  // set: `epochs` is ignored, the stopping rule decides
  std::optional<ReparamPlan> reparam;
  bool measure_salience = false;  // record each KxK conv's sum(grad * w) over the last epoch
  int first_epoch = 0;            // epoch e shuffles with seed (seed, first_epoch + e): a job that
                                  // continues another's epochs continues its shuffles
  int64_t steps = 0;  // > 0: exactly this many mini-batches (reshuffling each pass), epochs unused
};

struct TrainOutcome {
  std::vector<float> weights;
  double mean_loss = 0;  // over all mini-batches, weighted by batch size
  int64_t steps = 0;
  int epochs = 0;                    // epochs trained (the rule's count for a dynamic job)
  std::vector<double> batch_losses;  // every mini-batch's loss, in order
  std::vector<int> grown;          // reparam jobs: conv sites grown (models::conv_sites indices)
  std::vector<double> salience;   // per conv site, over the last epoch (measure_salience, reparam)
};

struct EvalOutcome {
  double accuracy = 0, loss = 0;
  int64_t samples = 0;
  std::vector<int64_t> confusion;  // classes x classes: [true * classes + predicted]
  std::optional<double> auc;       // macro one-vs-rest on the softmax scores (sim/metrics.hpp)
};

TrainOutcome run_training(const TrainJob& job);

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

// training.device -> a device: "auto" is cuda when this LibTorch build sees a GPU, else cpu.
// Throws std::runtime_error for "cuda" when there is none.
ComputeDevice resolve_device(const std::string& setting);
bool cuda_available();

// Initial weights, drawn from torch's generator after seeding it. Call from one thread, before
// any job runs: torch's default generator is global (see notes/dependencies.md).
std::vector<float> initial_weights(const models::ModelSpec& spec, uint64_t seed);

// Per worker thread: fixes torch's intra-op thread count for that thread.
void init_torch_worker(int intra_op_threads);

// Versions for summary.json.
std::string torch_version();

}  // namespace fedgrid

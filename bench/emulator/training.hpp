#pragma once
// A hospital's real local work: fedgrid's own PlainTraining (the shared epoch loop and batch
// plan, SGD with momentum 0.9) on seeded synthetic samples of the model's input shape. The
// values do not matter for timing; the arithmetic is the real training's.
#include <cstdint>
#include <vector>

#include "bench/emulator/options.hpp"
#include "data/dataset.hpp"

namespace fedgrid::emulator {

// One torch intra-op thread and one inter-op thread: a process is one CPU share.
void init_torch_threads();

// The model every schedule starts from (the server's, or FedCross's first hospital's).
std::vector<float> initial_model(const Options& o);

// fedgrid's sample-weighted average of the round's models (algorithms/aggregation.cpp), and
// the FLOPs fedgrid charges the server for it.
std::vector<float> average(const Options& o, std::vector<std::vector<float>> models, const std::vector<int64_t>& samples);
double average_flops(const Options& o, size_t models);

struct TrainResult {
  std::vector<float> weights;
  double loss = 0;
  int64_t steps = 0;
};

class LocalTrainer {
 public:
  // Draws the hospital's samples and trains one warm-up epoch (module built, kernels for
  // every batch shape, heap grown) so that round 1 pays only what every round pays.
  LocalTrainer(const Options& o, int hospital);
  TrainResult train(const std::vector<float>& weights, int round);
  // FedAsync's job number `job` (fedgrid seeds an asynchronous job's shuffling by job, not
  // round: Federation::job_seed).
  TrainResult train_job(const std::vector<float>& weights, uint64_t job);
  // What fedgrid charges for the job (PlainTraining::cost): FLOPs and mini-batches.
  double flops() const;
  int64_t steps() const;

 private:
  TrainResult run(const std::vector<float>& weights, uint64_t seed);

  const Options& o_;
  int hospital_;
  data::Dataset data_;
  data::Indices all_;
};

}  // namespace fedgrid::emulator

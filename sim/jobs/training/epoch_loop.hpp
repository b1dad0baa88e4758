#pragma once
// The torch side every local work shares: the per-thread module cache, the dataset as tensors,
// the one optimiser (optimizer.hpp), and the one epoch loop (shuffle, mini-batches, loss
// bookkeeping) into which a work plugs its step. Include only from .cpp files that run on the executor: torch/torch.h
// costs ~27 s per translation unit.
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <vector>

#include "data/dataset.hpp"
#include "models/nets.hpp"
#include "sim/jobs/local_work.hpp"
#include "sim/jobs/training/batch_walk.hpp"
#include "sim/jobs/training/optimizer.hpp"

namespace fedgrid {

// One mini-batch inside PlainTraining: variants add to `objective` (add_penalty) or read the
// gradients (after_backward).
struct BatchStep {
  models::Net& net;
  const torch::Tensor& loss;  // the batch's cross-entropy, the value reported
  torch::Tensor objective;    // what backward() runs on: loss unless a penalty is added
  bool last_pass = false;     // the job's last epoch
};

namespace jobs {

torch::Device torch_device(ComputeDevice d);

// One module per architecture, device, slot and worker thread, reloaded from flat weights for
// every job. A job holding two models of one architecture at once uses two slots.
models::Net& cached_net(const models::ModelSpec& spec, ComputeDevice device, int slot = 0);

struct DatasetTensors {
  torch::Tensor images, labels;
};
// On the CPU a view, no copy (the dataset outlives every job). On a GPU the dataset is copied
// there once per run and shared by all workers, so batches never cross the bus.
DatasetTensors tensors_of(const data::Dataset& d, ComputeDevice device);

// Sample indices as a tensor on the compute device (a view of `data` on the CPU).
torch::Tensor index_tensor(const int64_t* data, int64_t len, ComputeDevice device);

// A batch's images (rows `images` of the dataset) augmented when job.augment is on
// (sim/jobs/training/augmentation.hpp: per sample and epoch), as they are otherwise.
torch::Tensor augmented(const JobInput& job, const torch::Tensor& images, const BatchWalk::Batch& batch);

// The one epoch loop: the job's batches in BatchWalk's order (batch_walk.hpp), in mini-batches of
// job.batch_size, each batch's images augmented(). `step(x, y, last_pass)` trains on one batch
// and returns its loss; `after_pass(pass)` runs after each pass and returns true to stop early.
// Fills batch_losses, mean_loss (weighted by batch size), steps and epochs (passes run) of the
// outcome; the weights are the caller's.
using BatchFn = std::function<double(const torch::Tensor& x, const torch::Tensor& y, bool last_pass)>;
TrainOutcome run_epochs(const JobInput& job, const DatasetTensors& data, const data::Indices& samples,
                        const LoopPlan& plan, const BatchFn& step, const std::function<bool(int)>& after_pass = {});

// Scores a loaded net (eval mode, gradients off) on `indices` of the tensors, or on all of
// them when null: accuracy, mean loss, confusion matrix and AUC, in batches of eval_batch(device).
EvalOutcome score(models::Net& net, const DatasetTensors& data, const data::Indices* indices, int64_t classes,
                  ComputeDevice device);
// The batches of samples [first, first + count) of those `score` would score (`first` a
// multiple of eval_batch(device)), for combine_evaluation.
EvalPart score_part(models::Net& net, const DatasetTensors& data, const data::Indices* indices, int64_t first,
                    int64_t count, int64_t classes, ComputeDevice device);

}  // namespace jobs
}  // namespace fedgrid

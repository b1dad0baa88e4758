#pragma once
// What the torch-side jobs share (trainer.cpp, reparam_training.cpp, distillation.cpp): the
// per-thread module cache, the dataset as tensors, batches of indices, optimisers. Internal:
// include only from those files (torch/torch.h costs ~27 s per translation unit).
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <vector>

#include "data/dataset.hpp"
#include "models/nets.hpp"
#include "sim/trainer.hpp"

namespace fedgrid::jobs {

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

std::unique_ptr<torch::optim::Optimizer> make_optimizer(std::vector<torch::Tensor> params, const OptimizerConfig& c);

// Each KxK conv's salience sum(grad * w), summed after every backward pass and averaged over
// the passes measured (DyRep's metric, which DynamicFL ranks convs by).
class SalienceMeter {
 public:
  explicit SalienceMeter(models::Net& net) : net_(net), sum_(net.growable.size(), 0.0) {}
  void measure();                    // after a backward pass
  std::vector<double> mean() const;  // per conv site

 private:
  models::Net& net_;
  std::vector<double> sum_;
  int64_t steps_ = 0;
};

// One pass over `order` (shuffled here, with the job's seed for epoch first_epoch + epoch) in
// mini-batches of job.batch_size, stopping at job.steps batches when set, leaving a trailing
// batch of one out when `drop_single` (batch_plan's rule): `step(x, y)` trains
// on a batch and returns its loss, which goes to out.batch_losses and loss_sum (weighted by
// batch size, its samples to loss_samples); out.steps counts the batches.
void for_each_batch(const TrainJob& job, const DatasetTensors& data, std::vector<int64_t>& order, int epoch,
                    bool drop_single, double& loss_sum, int64_t& loss_samples, TrainOutcome& out,
                    const std::function<double(const torch::Tensor& x, const torch::Tensor& y)>& step);

// One epoch of mini-batch training over `order` (shuffled here, with the job's seed for epoch
// first_epoch + epoch): cross-entropy, plus FedProx's (mu/2)||w - anchor||^2 when `anchor` is
// set; `meter` (if any) reads the gradients after each backward. Every batch's loss goes to
// out.batch_losses and loss_sum (weighted by batch size, its samples to loss_samples);
// out.steps counts the batches.
void run_epoch(models::Net& net, torch::optim::Optimizer& optimizer, const TrainJob& job, const DatasetTensors& data,
               std::vector<int64_t>& order, int epoch, const std::vector<torch::Tensor>& anchor, SalienceMeter* meter,
               double& loss_sum, int64_t& loss_samples, TrainOutcome& out);

// TrainJob with a ReparamPlan (reparam_training.cpp).
TrainOutcome run_reparam_training(const TrainJob& job);

}  // namespace fedgrid::jobs

#include "sim/trainer.hpp"

#include <torch/torch.h>

#include <map>
#include <mutex>
#include <stdexcept>

#include "data/rng.hpp"
#include "models/nets.hpp"

namespace fedgrid {
namespace {

torch::Device torch_device(ComputeDevice d) { return d == ComputeDevice::Cuda ? torch::kCUDA : torch::kCPU; }

// One module per architecture, device and worker thread, reloaded from flat weights for every job.
models::Net& cached_net(const models::ModelSpec& spec, ComputeDevice device) {
  thread_local std::map<std::string, std::shared_ptr<models::Net>> cache;
  const std::string key = spec.arch + "/" + std::to_string(spec.channels) + "x" + std::to_string(spec.height) +
                          "x" + std::to_string(spec.width) + "/" + std::to_string(spec.num_classes) +
                          (device == ComputeDevice::Cuda ? "/cuda" : "/cpu");
  auto& slot = cache[key];
  if (!slot) {
    slot = models::make_net(spec);
    slot->to(torch_device(device));
  }
  return *slot;
}

struct DatasetTensors {
  torch::Tensor images, labels;
};

// On the CPU a view, no copy (the dataset outlives every job). On a GPU the dataset is copied
// there once per run and shared by all workers, so batches never cross the bus.
DatasetTensors tensors_of(const data::Dataset& d, ComputeDevice device) {
  auto images = torch::from_blob(const_cast<float*>(d.images.data()),
                                 {d.size(), d.shape.channels, d.shape.height, d.shape.width}, torch::kFloat32);
  auto labels = torch::from_blob(const_cast<int64_t*>(d.labels.data()), {d.size()}, torch::kInt64);
  if (device == ComputeDevice::Cpu) return {images, labels};
  static std::mutex mutex;
  static std::map<const data::Dataset*, DatasetTensors> on_gpu;
  std::lock_guard lock(mutex);
  auto& slot = on_gpu[&d];
  if (!slot.images.defined()) slot = {images.to(torch::kCUDA), labels.to(torch::kCUDA)};
  return slot;
}

// Sample indices as a tensor on the compute device (a view of `data` on the CPU).
torch::Tensor index_tensor(const int64_t* data, int64_t len, ComputeDevice device) {
  auto idx = torch::from_blob(const_cast<int64_t*>(data), {len}, torch::kInt64);
  return device == ComputeDevice::Cpu ? idx : idx.to(torch::kCUDA);
}

std::unique_ptr<torch::optim::Optimizer> make_optimizer(models::Net& net, const OptimizerConfig& c) {
  if (c.name == "adam")
    return std::make_unique<torch::optim::Adam>(net.parameters(),
                                                torch::optim::AdamOptions(c.lr).weight_decay(c.weight_decay));
  return std::make_unique<torch::optim::SGD>(
      net.parameters(), torch::optim::SGDOptions(c.lr).momentum(c.momentum).weight_decay(c.weight_decay));
}

}  // namespace

TrainOutcome run_training(const TrainJob& job) {
  models::Net& net = cached_net(job.spec, job.device);
  models::load_state(net, *job.weights);
  net.train();
  auto optimizer = make_optimizer(net, job.optimizer);
  const auto [images, labels] = tensors_of(*job.dataset, job.device);

  std::vector<int64_t> order = *job.indices;
  const int64_t n = int64_t(order.size());
  double loss_sum = 0;
  int64_t loss_samples = 0, steps = 0;
  for (int epoch = 0; epoch < job.epochs; ++epoch) {
    Rng(mix_seed(job.seed, uint64_t(epoch))).shuffle(order);
    for (int64_t start = 0; start < n; start += job.batch_size) {
      const int64_t len = std::min<int64_t>(job.batch_size, n - start);
      torch::Tensor idx = index_tensor(order.data() + start, len, job.device);
      torch::Tensor x = images.index_select(0, idx), y = labels.index_select(0, idx);
      optimizer->zero_grad();
      torch::Tensor loss = torch::nn::functional::cross_entropy(net.forward(x), y);
      loss.backward();
      optimizer->step();
      loss_sum += loss.item<double>() * double(len);
      loss_samples += len;
      ++steps;
    }
  }
  return {models::flatten_state(net), loss_samples ? loss_sum / double(loss_samples) : 0.0, steps};
}

EvalOutcome run_evaluation(const models::ModelSpec& spec, const std::vector<float>& weights,
                           const data::Dataset& dataset, const data::Indices* indices, ComputeDevice device) {
  torch::NoGradGuard no_grad;
  models::Net& net = cached_net(spec, device);
  models::load_state(net, weights);
  net.eval();
  const auto [images, labels] = tensors_of(dataset, device);
  const int64_t n = indices ? int64_t(indices->size()) : dataset.size();
  constexpr int64_t kBatch = 1000;
  double loss_sum = 0;
  int64_t correct = 0;
  for (int64_t start = 0; start < n; start += kBatch) {
    const int64_t len = std::min(kBatch, n - start);
    torch::Tensor x, y;
    if (indices) {
      torch::Tensor idx = index_tensor(indices->data() + start, len, device);
      x = images.index_select(0, idx), y = labels.index_select(0, idx);
    } else {
      x = images.narrow(0, start, len), y = labels.narrow(0, start, len);
    }
    torch::Tensor logits = net.forward(x);
    loss_sum += torch::nn::functional::cross_entropy(
                    logits, y, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
                    .item<double>();
    correct += logits.argmax(1).eq(y).sum().item<int64_t>();
  }
  if (n == 0) return {};
  return {double(correct) / double(n), loss_sum / double(n), n};
}

std::vector<float> initial_weights(const models::ModelSpec& spec, uint64_t seed) {
  torch::manual_seed(seed);
  auto net = models::make_net(spec);
  return models::flatten_state(*net);
}

bool cuda_available() { return torch::cuda::is_available(); }

ComputeDevice resolve_device(const std::string& setting) {
  if (setting == "cpu") return ComputeDevice::Cpu;
  if (cuda_available()) return ComputeDevice::Cuda;
  if (setting == "cuda")
    throw std::runtime_error("no CUDA device visible to this LibTorch build (Debian's LibTorch is CPU-only; "
                             "build against a CUDA LibTorch, see README 'GPU')");
  return ComputeDevice::Cpu;
}

void init_torch_worker(int intra_op_threads) { torch::set_num_threads(std::max(1, intra_op_threads)); }

std::string torch_version() { return TORCH_VERSION; }

}  // namespace fedgrid

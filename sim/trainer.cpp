#include "sim/trainer.hpp"

#include <torch/torch.h>

#include <map>

#include "data/rng.hpp"
#include "models/nets.hpp"

namespace fedgrid {
namespace {

// One module per architecture and worker thread, reloaded from flat weights for every job.
models::Net& cached_net(const models::ModelSpec& spec) {
  thread_local std::map<std::string, std::shared_ptr<models::Net>> cache;
  const std::string key = spec.arch + "/" + std::to_string(spec.channels) + "x" + std::to_string(spec.height) +
                          "x" + std::to_string(spec.width) + "/" + std::to_string(spec.num_classes);
  auto& slot = cache[key];
  if (!slot) slot = models::make_net(spec);
  return *slot;
}

torch::Tensor images_of(const data::Dataset& d) {
  // A view, no copy: the dataset outlives every job.
  return torch::from_blob(const_cast<float*>(d.images.data()),
                          {d.size(), d.shape.channels, d.shape.height, d.shape.width}, torch::kFloat32);
}

torch::Tensor labels_of(const data::Dataset& d) {
  return torch::from_blob(const_cast<int64_t*>(d.labels.data()), {d.size()}, torch::kInt64);
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
  models::Net& net = cached_net(job.spec);
  models::load_state(net, job.weights);
  net.train();
  auto optimizer = make_optimizer(net, job.optimizer);
  const torch::Tensor images = images_of(*job.dataset), labels = labels_of(*job.dataset);

  std::vector<int64_t> order = *job.indices;
  const int64_t n = int64_t(order.size());
  double loss_sum = 0;
  int64_t loss_samples = 0, steps = 0;
  for (int epoch = 0; epoch < job.epochs; ++epoch) {
    Rng(mix_seed(job.seed, uint64_t(epoch))).shuffle(order);
    for (int64_t start = 0; start < n; start += job.batch_size) {
      const int64_t len = std::min<int64_t>(job.batch_size, n - start);
      torch::Tensor idx = torch::from_blob(order.data() + start, {len}, torch::kInt64);
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
                           const data::Dataset& dataset, const data::Indices* indices) {
  torch::NoGradGuard no_grad;
  models::Net& net = cached_net(spec);
  models::load_state(net, weights);
  net.eval();
  const torch::Tensor images = images_of(dataset), labels = labels_of(dataset);
  const int64_t n = indices ? int64_t(indices->size()) : dataset.size();
  constexpr int64_t kBatch = 1000;
  double loss_sum = 0;
  int64_t correct = 0;
  for (int64_t start = 0; start < n; start += kBatch) {
    const int64_t len = std::min(kBatch, n - start);
    torch::Tensor x, y;
    if (indices) {
      torch::Tensor idx = torch::from_blob(const_cast<int64_t*>(indices->data()) + start, {len}, torch::kInt64);
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

void init_torch_worker(int intra_op_threads) { torch::set_num_threads(std::max(1, intra_op_threads)); }

std::string torch_version() { return TORCH_VERSION; }

}  // namespace fedgrid

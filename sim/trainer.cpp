#include "sim/trainer.hpp"

#include <torch/torch.h>

#include "sim/torch_jobs.hpp"

#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>

#include "data/rng.hpp"
#include "models/nets.hpp"
#include "sim/metrics.hpp"

namespace fedgrid {
namespace jobs {

torch::Device torch_device(ComputeDevice d) { return d == ComputeDevice::Cuda ? torch::kCUDA : torch::kCPU; }

models::Net& cached_net(const models::ModelSpec& spec, ComputeDevice device, int slot) {
  thread_local std::map<std::string, std::shared_ptr<models::Net>> cache;
  const std::string key = models::spec_label(spec) + "/" + std::to_string(spec.channels) + "x" + std::to_string(spec.height) +
                          "x" + std::to_string(spec.width) + "/" + std::to_string(spec.num_classes) +
                          (device == ComputeDevice::Cuda ? "/cuda" : "/cpu") + "#" + std::to_string(slot);
  auto& net = cache[key];
  if (!net) {
    net = models::make_net(spec);
    net->to(torch_device(device));
  }
  return *net;
}

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

torch::Tensor index_tensor(const int64_t* data, int64_t len, ComputeDevice device) {
  auto idx = torch::from_blob(const_cast<int64_t*>(data), {len}, torch::kInt64);
  return device == ComputeDevice::Cpu ? idx : idx.to(torch::kCUDA);
}

std::unique_ptr<torch::optim::Optimizer> make_optimizer(std::vector<torch::Tensor> params, const OptimizerConfig& c) {
  if (c.name == "adam")
    return std::make_unique<torch::optim::Adam>(std::move(params),
                                                torch::optim::AdamOptions(c.lr).weight_decay(c.weight_decay));
  return std::make_unique<torch::optim::SGD>(
      std::move(params), torch::optim::SGDOptions(c.lr).momentum(c.momentum).weight_decay(c.weight_decay));
}

void for_each_batch(const TrainJob& job, const DatasetTensors& data, std::vector<int64_t>& order, int epoch,
                    bool drop_single, double& loss_sum, int64_t& loss_samples, TrainOutcome& out,
                    const std::function<double(const torch::Tensor& x, const torch::Tensor& y)>& step) {
  Rng(mix_seed(job.seed, uint64_t(job.first_epoch + epoch))).shuffle(order);
  const int64_t n = int64_t(order.size());
  for (int64_t start = 0; start < n; start += job.batch_size) {
    const int64_t len = std::min<int64_t>(job.batch_size, n - start);
    if (len == 1 && start > 0 && drop_single) break;
    if (job.steps > 0 && out.steps >= job.steps) break;
    torch::Tensor idx = index_tensor(order.data() + start, len, job.device);
    const double batch_loss = step(data.images.index_select(0, idx), data.labels.index_select(0, idx));
    out.batch_losses.push_back(batch_loss);
    loss_sum += batch_loss * double(len);
    loss_samples += len;
    ++out.steps;
  }
}

void run_epoch(models::Net& net, torch::optim::Optimizer& optimizer, const TrainJob& job, const DatasetTensors& data,
               std::vector<int64_t>& order, int epoch, const std::vector<torch::Tensor>& anchor, SalienceMeter* meter,
               double& loss_sum, int64_t& loss_samples, TrainOutcome& out) {
  // A train-mode batch norm needs two values per channel: on a 1x1 map one sample throws, so
  // such nets leave a trailing batch of one out (as drop_last would).
  const bool drop_single = models::batchnorm_on_1x1(job.spec);
  for_each_batch(job, data, order, epoch, drop_single, loss_sum, loss_samples, out, [&](const torch::Tensor& x, const torch::Tensor& y) {
    optimizer.zero_grad();
    torch::Tensor loss = torch::nn::functional::cross_entropy(net.forward(x), y);
    torch::Tensor objective = loss;
    if (!anchor.empty()) {
      const auto params = net.parameters();
      torch::Tensor proximal = torch::zeros({}, loss.options());
      for (size_t i = 0; i < params.size(); ++i) proximal = proximal + (params[i] - anchor[i]).pow(2).sum();
      objective = loss + 0.5 * job.prox_mu * proximal;
    }
    objective.backward();
    if (meter) meter->measure();
    optimizer.step();
    return loss.item<double>();
  });
}

}  // namespace jobs

namespace {

using namespace jobs;

// Scores a loaded net (in eval mode, gradients off) on `indices` of the dataset's tensors, or
// on all of it when `indices` is null: accuracy, mean loss, confusion matrix, in batches.
EvalOutcome score(models::Net& net, const torch::Tensor& images, const torch::Tensor& labels,
                  const data::Indices* indices, int64_t classes, ComputeDevice device) {
  const int64_t n = indices ? int64_t(indices->size()) : images.size(0);
  constexpr int64_t kBatch = 1000;
  double loss_sum = 0;
  int64_t correct = 0;
  torch::Tensor confusion = torch::zeros({classes * classes}, torch::kInt64);
  std::vector<torch::Tensor> probabilities, truths;
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
    const torch::Tensor predicted = logits.argmax(1);
    correct += predicted.eq(y).sum().item<int64_t>();
    confusion += torch::bincount((y * classes + predicted).cpu(), {}, classes * classes);
    probabilities.push_back(torch::softmax(logits, 1).to(torch::kCPU, torch::kFloat32));
    truths.push_back(y.cpu());
  }
  if (n == 0) return {};
  std::vector<int64_t> counts(confusion.data_ptr<int64_t>(), confusion.data_ptr<int64_t>() + classes * classes);
  const torch::Tensor p = torch::cat(probabilities).contiguous(), t = torch::cat(truths).contiguous();
  const std::vector<float> scores(p.data_ptr<float>(), p.data_ptr<float>() + p.numel());
  const std::vector<int64_t> labels_of(t.data_ptr<int64_t>(), t.data_ptr<int64_t>() + t.numel());
  return {double(correct) / double(n), loss_sum / double(n), n, std::move(counts),
          macro_auc_ovr(scores, labels_of, int(classes))};
}

// Mean cross-entropy over `indices` in eval mode, inside a training job; leaves the net training.
double validation_loss(models::Net& net, const torch::Tensor& images, const torch::Tensor& labels,
                       const data::Indices& indices, int64_t classes, ComputeDevice device) {
  torch::NoGradGuard no_grad;
  net.eval();
  const double loss = score(net, images, labels, &indices, classes, device).loss;
  net.train();
  return loss;
}

}  // namespace

TrainOutcome run_training(const TrainJob& job) {
  if (job.reparam) return run_reparam_training(job);
  models::Net& net = cached_net(job.spec, job.device);
  models::load_state(net, *job.weights);
  net.train();
  auto optimizer = make_optimizer(net.parameters(), job.optimizer);
  const auto [images, labels] = tensors_of(*job.dataset, job.device);
  // FedProx's anchor: the parameters the job started from (buffers are not regularised).
  std::vector<torch::Tensor> anchor;
  if (job.prox_mu > 0)
    for (const auto& p : net.parameters()) anchor.push_back(p.detach().clone());

  std::vector<int64_t> order = *job.indices;
  double loss_sum = 0;
  int64_t loss_samples = 0;
  TrainOutcome out;
  // Dynamic stopping: the best validation loss so far, its weights, epochs since it.
  double best_val = std::numeric_limits<double>::infinity();
  std::vector<float> best_weights;
  int since_best = 0, epochs_run = 0;
  const int max_epochs = job.dynamic  ? job.dynamic->max_epochs
                         : job.steps ? passes_begun(int64_t(order.size()), job.batch_size, job.steps,
                                                    models::batchnorm_on_1x1(job.spec))
                                     : job.epochs;
  SalienceMeter meter(net);
  for (int epoch = 0; epoch < max_epochs; ++epoch) {
    run_epoch(net, *optimizer, job, {images, labels}, order, epoch, anchor,
              job.measure_salience && epoch + 1 == max_epochs ? &meter : nullptr, loss_sum, loss_samples, out);
    ++epochs_run;
    if (!job.dynamic) continue;
    const double val =
        validation_loss(net, images, labels, *job.dynamic->validation, job.spec.num_classes, job.device);
    if (val < best_val - job.dynamic->min_delta) {
      best_val = val, best_weights = models::flatten_state(net), since_best = 0;
    } else if (++since_best >= job.dynamic->patience) {
      break;
    }
  }
  out.weights = job.dynamic && !best_weights.empty() ? std::move(best_weights) : models::flatten_state(net);
  out.mean_loss = loss_samples ? loss_sum / double(loss_samples) : 0.0;
  out.epochs = epochs_run;
  if (job.measure_salience) out.salience = meter.mean();
  return out;
}

EvalOutcome run_evaluation(const models::ModelSpec& spec, const std::vector<float>& weights,
                           const data::Dataset& dataset, const data::Indices* indices, ComputeDevice device) {
  torch::NoGradGuard no_grad;
  models::Net& net = cached_net(spec, device);
  models::load_state(net, weights);
  net.eval();
  const auto [images, labels] = tensors_of(dataset, device);
  return score(net, images, labels, indices, spec.num_classes, device);
}

namespace {

// Batches in one pass over n samples (a trailing batch of one left out when drop_single).
int64_t batches_per_pass(int64_t n, int64_t batch, bool drop_single) {
  const int64_t full = n / batch, rest = n % batch;
  return full + (rest > 1 || (rest == 1 && (!drop_single || full == 0)) ? 1 : 0);
}

}  // namespace

std::vector<int64_t> batch_plan(int64_t n, int64_t batch, int epochs, int64_t steps, bool drop_single) {
  std::vector<int64_t> plan;
  const int64_t per_pass = batches_per_pass(n, batch, drop_single);
  if (n <= 0 || batch <= 0 || per_pass == 0) return plan;
  const int64_t total = steps > 0 ? steps : per_pass * epochs;
  plan.reserve(size_t(total));
  for (int64_t i = 0; i < total; ++i) {
    const int64_t start = (i % per_pass) * batch;
    plan.push_back(std::min(batch, n - start));
  }
  return plan;
}

int passes_begun(int64_t n, int64_t batch, int64_t steps, bool drop_single) {
  const int64_t per_pass = batches_per_pass(n, batch, drop_single);
  return per_pass ? int((steps + per_pass - 1) / per_pass) : 0;
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

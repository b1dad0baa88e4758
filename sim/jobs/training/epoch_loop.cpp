#include "sim/jobs/training/epoch_loop.hpp"

#include <map>
#include <mutex>

#include "data/rng.hpp"
#include "sim/jobs/training/augmentation.hpp"
#include "sim/jobs/evaluation/metrics.hpp"

namespace fedgrid::jobs {

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
  if (c.kind == Optimizer::Adam)
    return std::make_unique<torch::optim::Adam>(std::move(params),
                                                torch::optim::AdamOptions(c.lr).weight_decay(c.weight_decay));
  if (c.kind == Optimizer::AdamW)
    return std::make_unique<torch::optim::AdamW>(std::move(params),
                                                 torch::optim::AdamWOptions(c.lr).weight_decay(c.weight_decay));
  return std::make_unique<torch::optim::SGD>(
      std::move(params), torch::optim::SGDOptions(c.lr).momentum(c.momentum).weight_decay(c.weight_decay));
}

TrainOutcome run_epochs(const JobInput& job, const DatasetTensors& data, const data::Indices& samples,
                        const LoopPlan& plan, const BatchFn& step, const std::function<bool(int)>& after_pass) {
  TrainOutcome out;
  std::vector<int64_t> order = samples;
  const int64_t n = int64_t(order.size());
  double loss_sum = 0;
  int64_t loss_samples = 0;
  for (int pass = 0; pass < plan.passes; ++pass) {
    const bool last = pass + 1 == plan.passes;
    Rng(mix_seed(job.seed, uint64_t(plan.first_epoch + pass))).shuffle(order);
    for (int64_t start = 0; start < n; start += job.batch_size) {
      const int64_t len = std::min<int64_t>(job.batch_size, n - start);
      if (len == 1 && start > 0 && plan.drop_single) break;
      if (plan.steps > 0 && out.steps >= plan.steps) break;
      torch::Tensor idx = index_tensor(order.data() + start, len, job.device);
      torch::Tensor x = data.images.index_select(0, idx);
      if (job.augment.on())
        x = augment_batch(x, job.augment, job.seed, uint64_t(plan.first_epoch + pass), order.data() + start);
      const double batch_loss = step(x, data.labels.index_select(0, idx), last);
      out.batch_losses.push_back(batch_loss);
      loss_sum += batch_loss * double(len);
      loss_samples += len;
      ++out.steps;
    }
    ++out.epochs;
    if (after_pass && after_pass(pass)) break;
  }
  out.mean_loss = loss_samples ? loss_sum / double(loss_samples) : 0.0;
  return out;
}

EvalPart score_part(models::Net& net, const DatasetTensors& data, const data::Indices* indices, int64_t first,
                    int64_t count, int64_t classes, ComputeDevice device) {
  const auto& [images, labels] = data;
  EvalPart out;
  torch::Tensor confusion = torch::zeros({classes * classes}, torch::kInt64);
  std::vector<torch::Tensor> probabilities, truths;
  const int64_t batch = eval_batch(device);
  for (int64_t start = first; start < first + count; start += batch) {
    const int64_t len = std::min(batch, first + count - start);
    torch::Tensor x, y;
    if (indices) {
      torch::Tensor idx = index_tensor(indices->data() + start, len, device);
      x = images.index_select(0, idx), y = labels.index_select(0, idx);
    } else {
      x = images.narrow(0, start, len), y = labels.narrow(0, start, len);
    }
    torch::Tensor logits = net.forward(x);
    out.batch_losses.push_back(
        torch::nn::functional::cross_entropy(logits, y,
                                             torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
            .item<double>());
    const torch::Tensor predicted = logits.argmax(1);
    out.correct += predicted.eq(y).sum().item<int64_t>();
    confusion += torch::bincount((y * classes + predicted).cpu(), {}, classes * classes);
    probabilities.push_back(torch::softmax(logits, 1).to(torch::kCPU, torch::kFloat32));
    truths.push_back(y.cpu());
  }
  if (count <= 0) return out;
  out.confusion.assign(confusion.data_ptr<int64_t>(), confusion.data_ptr<int64_t>() + classes * classes);
  const torch::Tensor p = torch::cat(probabilities).contiguous(), t = torch::cat(truths).contiguous();
  out.probabilities.assign(p.data_ptr<float>(), p.data_ptr<float>() + p.numel());
  out.labels.assign(t.data_ptr<int64_t>(), t.data_ptr<int64_t>() + t.numel());
  return out;
}

EvalOutcome score(models::Net& net, const DatasetTensors& data, const data::Indices* indices, int64_t classes,
                  ComputeDevice device) {
  const int64_t n = indices ? int64_t(indices->size()) : data.images.size(0);
  return combine_evaluation({score_part(net, data, indices, 0, n, classes, device)}, int(classes));
}

}  // namespace fedgrid::jobs

namespace fedgrid {

EvalOutcome run_evaluation(const models::ModelSpec& spec, const std::vector<float>& weights,
                           const data::Dataset& dataset, const data::Indices* indices, ComputeDevice device) {
  const int64_t n = indices ? int64_t(indices->size()) : dataset.size();
  return combine_evaluation({run_evaluation_part(spec, weights, dataset, indices, 0, n, device)}, spec.num_classes);
}

EvalPart run_evaluation_part(const models::ModelSpec& spec, const std::vector<float>& weights,
                             const data::Dataset& dataset, const data::Indices* indices, int64_t first, int64_t count,
                             ComputeDevice device) {
  torch::NoGradGuard no_grad;
  models::Net& net = jobs::cached_net(spec, device);
  models::load_state(net, weights);
  net.eval();
  return jobs::score_part(net, jobs::tensors_of(dataset, device), indices, first, count, spec.num_classes, device);
}

}  // namespace fedgrid

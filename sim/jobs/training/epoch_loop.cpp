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

torch::Tensor augmented(const JobInput& job, const torch::Tensor& images, const BatchWalk::Batch& batch) {
  return job.augment.on() ? augment_batch(images, job.augment, job.seed, batch.epoch, batch.samples) : images;
}

TrainOutcome run_epochs(const JobInput& job, const DatasetTensors& data, const data::Indices& samples,
                        const LoopPlan& plan, const BatchFn& step, const std::function<bool(int)>& after_pass) {
  TrainOutcome out;
  BatchWalk walk(samples, job.seed, job.batch_size, plan);
  double loss_sum = 0;
  int64_t loss_samples = 0;
  for (int pass = 0; walk.begin_pass(); ++pass) {
    const bool last = pass + 1 == plan.passes;
    while (const BatchWalk::Batch b = walk.next_in_pass()) {
      const torch::Tensor idx = index_tensor(b.samples, b.size, job.device);
      const double batch_loss =
          step(augmented(job, data.images.index_select(0, idx), b), data.labels.index_select(0, idx), last);
      out.batch_losses.push_back(batch_loss);
      loss_sum += batch_loss * double(b.size);
      loss_samples += b.size;
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

// FedDF's server works, their torch side (distillation.hpp); their charges: distillation_cost.cpp.
#include "algorithms/feddf/distillation.hpp"

#include "data/rng.hpp"
#include "sim/jobs/training/epoch_loop.hpp"

namespace fedgrid::algorithms {

using namespace jobs;

void EnsembleLogits::run_torch(const data::Dataset& dataset, ComputeDevice device) {
  const auto& teachers = teachers_;
  const auto& indices = samples_;
  torch::NoGradGuard no_grad;
  const auto [images, labels] = tensors_of(dataset, device);
  const int64_t n = int64_t(indices.size());
  torch::Tensor sum;
  for (const Model* m : teachers) {
    models::Net& net = cached_net(m->spec, device);
    models::load_state(net, m->weights);
    net.eval();
    std::vector<torch::Tensor> parts;
    constexpr int64_t kBatch = 1000;
    for (int64_t start = 0; start < n; start += kBatch) {
      const int64_t len = std::min(kBatch, n - start);
      parts.push_back(net.forward(images.index_select(0, index_tensor(indices.data() + start, len, device))));
    }
    torch::Tensor logits = torch::cat(parts).to(torch::kCPU, torch::kFloat32);
    sum = sum.defined() ? sum + logits : logits;
  }
  const torch::Tensor mean = (sum / double(teachers.size())).contiguous();
  logits_.assign(mean.data_ptr<float>(), mean.data_ptr<float>() + mean.numel());
}

void Distillation::run_torch(const data::Dataset& dataset, ComputeDevice device) {
  const Settings& job = settings_;
  models::Net& net = cached_net(student_.spec, device);
  models::load_state(net, student_.weights);
  net.train();
  LocalOptimizer optimizer(net.parameters(), {Optimizer::Adam, job.lr, 0.0, 0.0});
  const auto [images, labels] = tensors_of(dataset, device);
  const int64_t n = int64_t(samples_.size()), classes = student_.spec.num_classes;
  const torch::Tensor teacher =
      torch::from_blob(const_cast<float*>(teacher_logits_.data()), {n, classes}, torch::kFloat32).to(torch_device(device));
  // Positions into `indices` (and the teacher's rows), shuffled every epoch.
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) order[size_t(i)] = i;
  for (int epoch = 0; epoch < job.epochs; ++epoch) {
    Rng(mix_seed(job.seed, uint64_t(epoch))).shuffle(order);
    for (int64_t start = 0; start < n; start += job.batch_size) {
      const int64_t len = std::min<int64_t>(job.batch_size, n - start);
      std::vector<int64_t> samples(static_cast<size_t>(len));
      for (int64_t i = 0; i < len; ++i) samples[size_t(i)] = samples_[size_t(order[size_t(start + i)])];
      const torch::Tensor rows = index_tensor(order.data() + start, len, device);
      const torch::Tensor x = images.index_select(0, index_tensor(samples.data(), len, device));
      optimizer.zero_grad();
      const torch::Tensor log_student = torch::log_softmax(net.forward(x), 1);
      const torch::Tensor target = torch::softmax(teacher.index_select(0, rows), 1);
      torch::nn::functional::kl_div(log_student, target,
                                    torch::nn::functional::KLDivFuncOptions().reduction(torch::kBatchMean))
          .backward();
      optimizer.step();
    }
  }
  weights_ = models::flatten_state(net);
}

}  // namespace fedgrid::algorithms

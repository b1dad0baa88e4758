#include "sim/distillation.hpp"

#include "data/rng.hpp"
#include "sim/torch_jobs.hpp"

namespace fedgrid {

using namespace jobs;

std::vector<float> ensemble_logits(const std::vector<const Model*>& teachers, const data::Dataset& dataset,
                                   const data::Indices& indices, ComputeDevice device) {
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
  return {mean.data_ptr<float>(), mean.data_ptr<float>() + mean.numel()};
}

std::vector<float> run_distillation(const DistillJob& job) {
  models::Net& net = cached_net(job.student->spec, job.device);
  models::load_state(net, job.student->weights);
  net.train();
  auto optimizer = make_optimizer(net.parameters(), {"adam", job.lr, 0.0, 0.0});
  const auto [images, labels] = tensors_of(*job.dataset, job.device);
  const int64_t n = int64_t(job.indices->size()), classes = job.student->spec.num_classes;
  const torch::Tensor teacher =
      torch::from_blob(const_cast<float*>(job.teacher_logits->data()), {n, classes}, torch::kFloat32).to(torch_device(job.device));
  // Positions into `indices` (and the teacher's rows), shuffled every epoch.
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) order[size_t(i)] = i;
  for (int epoch = 0; epoch < job.epochs; ++epoch) {
    Rng(mix_seed(job.seed, uint64_t(epoch))).shuffle(order);
    for (int64_t start = 0; start < n; start += job.batch_size) {
      const int64_t len = std::min<int64_t>(job.batch_size, n - start);
      std::vector<int64_t> samples(static_cast<size_t>(len));
      for (int64_t i = 0; i < len; ++i) samples[size_t(i)] = (*job.indices)[size_t(order[size_t(start + i)])];
      const torch::Tensor rows = index_tensor(order.data() + start, len, job.device);
      const torch::Tensor x = images.index_select(0, index_tensor(samples.data(), len, job.device));
      optimizer->zero_grad();
      const torch::Tensor log_student = torch::log_softmax(net.forward(x), 1);
      const torch::Tensor target = torch::softmax(teacher.index_select(0, rows), 1);
      torch::nn::functional::kl_div(log_student, target,
                                    torch::nn::functional::KLDivFuncOptions().reduction(torch::kBatchMean))
          .backward();
      optimizer->step();
    }
  }
  return models::flatten_state(net);
}

}  // namespace fedgrid

// CarPe-FL's hospital jobs (Shin et al. 2026). Choices the paper leaves open: the statistics
// are taken with the model the hospital holds at the refresh (its cluster's encoder), over its
// training split; the optimiser's state starts afresh every round (the paper does not say
// whether it persists); the proximal term covers the shared part only, never the head or gates.
// The optimiser and its rate are the engine's, as every other method's: training.optimizer
// (adamw for the paper's AdamW) at the round's training.lr_schedule rate, nothing on top.
#include "algorithms/carpefl/causal_jobs.hpp"

#include "models/causal_net.hpp"
#include "sim/jobs/training/epoch_loop.hpp"
#include "sim/jobs/training/plain_training.hpp"

namespace fedgrid::carpefl {
namespace {

models::CausalNet& causal_net(const JobInput& job) {
  auto* net = dynamic_cast<models::CausalNet*>(&jobs::cached_net(job.model->spec, job.device));
  if (!net) throw std::logic_error("a CarPe-FL job needs the carpefl network");
  models::load_state(*net, job.model->weights);
  return *net;
}

}  // namespace

TrainOutcome LatentStatistics::run_torch(const JobInput& job) {
  models::CausalNet& net = causal_net(job);
  net.eval();
  torch::NoGradGuard no_grad;
  const auto data = jobs::tensors_of(*job.dataset, job.device);
  const int64_t d = models::kCausalNet.latents, n = int64_t(job.train->size());
  auto sum = torch::zeros({d}, torch::kFloat64), outer = torch::zeros({d, d}, torch::kFloat64);
  for (int64_t start = 0; start < n; start += 1000) {
    const int64_t len = std::min<int64_t>(1000, n - start);
    const auto idx = jobs::index_tensor(job.train->data() + start, len, job.device);
    const auto z = net.encode(data.images.index_select(0, idx), nullptr).to(torch::kCPU, torch::kFloat64);
    sum += z.sum(0);
    outer += torch::matmul(z.t(), z);
  }
  const auto mean = sum / double(std::max<int64_t>(n, 1));
  const auto cov = outer / double(std::max<int64_t>(n, 1)) - torch::outer(mean, mean);
  const auto flat = torch::cat({mean, cov.flatten()}).to(torch::kFloat32).contiguous();
  TrainOutcome out;
  out.weights.assign(flat.data_ptr<float>(), flat.data_ptr<float>() + flat.numel());
  return out;
}

TrainOutcome CausalTraining::run_torch(const JobInput& job) {
  models::CausalNet& net = causal_net(job);
  net.train();
  // The shared part: everything but the head and the gate logits.
  std::vector<torch::Tensor> shared, anchor;
  for (const auto& p : net.parameters()) {
    if (p.is_same(net.graph->gate_logit) || p.is_same(net.head->weight) || p.is_same(net.head->bias)) continue;
    shared.push_back(p);
    anchor.push_back(p.detach().clone());
  }
  jobs::LocalOptimizer optimizer(net.parameters(), job.optimizer);
  TrainOutcome out = jobs::run_epochs(job, jobs::tensors_of(*job.dataset, job.device), *job.train, {epochs_, 0, 0, false},
                                        [&](const torch::Tensor& x, const torch::Tensor& y, bool) {
      optimizer.zero_grad();
      const torch::Tensor loss = torch::nn::functional::cross_entropy(net.forward(x), y);
      torch::Tensor objective = loss;
      if (mu_ > 0) {
        torch::Tensor proximal = torch::zeros({}, loss.options());
        for (size_t i = 0; i < shared.size(); ++i) proximal = proximal + (shared[i] - anchor[i]).pow(2).sum();
        objective = objective + 0.5 * mu_ * proximal;
      }
      objective.backward();
      optimizer.step();
      return loss.item<double>();
  });
  out.weights = models::flatten_state(net);
  return out;
}

}  // namespace fedgrid::carpefl

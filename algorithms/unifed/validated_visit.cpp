#include "algorithms/unifed/validated_visit.hpp"

#include <limits>
#include <stdexcept>

#include "sim/jobs/training/epoch_loop.hpp"

namespace fedgrid::algorithms {
namespace {

void load_momentum(jobs::LocalOptimizer& optimizer, const std::vector<torch::Tensor>& params,
                   const MomentumBuffers& saved) {
  if (optimizer.config().kind != Optimizer::Sgd)
    throw std::logic_error("kept momentum needs training.optimizer sgd");  // unifed checks the scenario first
  if (saved.empty()) return;
  int64_t at = 0;
  for (size_t k = 0; k < params.size(); ++k) {
    const torch::Tensor& p = params[k];
    const int64_t n = p.numel();
    auto buffer = torch::from_blob(const_cast<double*>(saved.data() + at), {n}, torch::kDouble)
                      .to(p.options(), /*non_blocking=*/false, /*copy=*/true)
                      .reshape(p.sizes());
    optimizer.set_state(k, {buffer, {}, 0});
    at += n;
  }
}

MomentumBuffers saved_momentum(const jobs::LocalOptimizer& optimizer, const std::vector<torch::Tensor>& params) {
  bool any = false;
  for (size_t k = 0; k < params.size(); ++k) any |= optimizer.state(k).has_value();
  if (!any) return {};  // no momentum (or no step taken)
  MomentumBuffers out;
  for (size_t k = 0; k < params.size(); ++k) {
    const auto s = optimizer.state(k);
    const torch::Tensor b = !s ? torch::zeros({params[k].numel()}, torch::kDouble)
                               : s->first.to(torch::kCPU, torch::kDouble).contiguous().reshape({-1});
    out.insert(out.end(), b.data_ptr<double>(), b.data_ptr<double>() + b.numel());
  }
  return out;
}

}  // namespace

TrainOutcome ValidatedVisit::run_torch(const JobInput& job) {
  using namespace jobs;
  const auto& spec = job.model->spec;
  models::Net& net = cached_net(spec, job.device);
  models::load_state(net, job.model->weights);
  net.train();
  LocalOptimizer optimizer(net.parameters(), job.optimizer);
  if (momentum_) load_momentum(optimizer, net.parameters(), *momentum_);
  const auto data = tensors_of(*job.dataset, job.device);
  double best_val = std::numeric_limits<double>::infinity();
  std::vector<float> best_weights;
  int since_best = 0;
  auto validate = [&](int) {
    if (rule_.patience == 0) return false;
    double val = 0;
    {
      torch::NoGradGuard no_grad;
      net.eval();
      val = score(net, data, job.validation, spec.num_classes, job.device).loss;
      net.train();
    }
    if (val < best_val - rule_.min_delta) {
      best_val = val, since_best = 0;
      if (rule_.restore_best) best_weights = models::flatten_state(net);
      return false;
    }
    return ++since_best >= rule_.patience;
  };
  TrainOutcome out = run_epochs(job, data, *job.train, {rule_.max_epochs, 0, 0, models::batchnorm_on_1x1(spec)},
                                [&](const torch::Tensor& x, const torch::Tensor& y, bool) {
    optimizer.zero_grad();
    torch::Tensor loss = torch::nn::functional::cross_entropy(net.forward(x), y);
    loss.backward();
    optimizer.step();
    return loss.item<double>();
  }, validate);
  out.weights = best_weights.empty() ? models::flatten_state(net) : std::move(best_weights);
  if (momentum_) *momentum_ = saved_momentum(optimizer, net.parameters());
  return out;
}

}  // namespace fedgrid::algorithms

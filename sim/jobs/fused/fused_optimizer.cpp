// Masked optimiser steps over stacked parameters (see fused_optimizer.hpp).
#include "sim/jobs/fused/fused_optimizer.hpp"

#include <algorithm>
#include <cmath>

namespace fedgrid::jobs {
namespace {

// torch::optim::AdamOptions' and AdamWOptions' defaults, which make_optimizer keeps.
constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kAdamEps = 1e-8;

// A per-member value [M] shaped to broadcast over a stacked tensor [M, ...].
torch::Tensor per_member(const torch::Tensor& values, const torch::Tensor& like) {
  std::vector<int64_t> shape(size_t(like.dim()), 1);
  shape[0] = like.size(0);
  return values.view(shape);
}

}  // namespace

FusedOptimizer::FusedOptimizer(std::vector<torch::Tensor> params, const OptimizerConfig& config)
    : params_(std::move(params)),
      config_(config),
      adam_(config.kind == Optimizer::Adam || config.kind == Optimizer::AdamW),
      decoupled_(config.kind == Optimizer::AdamW) {
  for (const auto& p : params_) {
    // Zero state is torch's first step exactly: buf = 0 * momentum + d is d, as torch's clone.
    first_.push_back(torch::zeros_like(p));
    if (adam_) second_.push_back(torch::zeros_like(p));
  }
  if (!params_.empty()) steps_.assign(size_t(params_.front().size(0)), 0);
}

void FusedOptimizer::step(const std::vector<bool>& active) {
  torch::NoGradGuard no_grad;
  const auto device = params_.front().device();
  const size_t members = active.size();
  // Per-member factors make a masked step the same in-place arithmetic as a full one: an active
  // member's factors are torch's (the state's decay, the update's weight 1, the step -lr), a
  // resting member's leave its state (decay 1, weight 0) and its weights (step 0) as they are.
  // No temporaries the size of the model: a fused model of a thousand hospitals is gigabytes.
  auto per_member_values = [&](auto value_of) {
    std::vector<double> v(members);
    for (size_t m = 0; m < members; ++m) v[m] = value_of(m);
    return torch::tensor(v, torch::kFloat64).to(device, torch::kFloat32);
  };
  auto on = [&](size_t m) { return active[m] ? 1.0 : 0.0; };
  const torch::Tensor weight = per_member_values(on);
  if (adam_) {
    for (size_t m = 0; m < members; ++m) steps_[m] += active[m] ? 1 : 0;
    // Bias corrections in double, as torch computes them.
    auto t = [&](size_t m) { return double(std::max<int64_t>(steps_[m], 1)); };
    const torch::Tensor decay1 = per_member_values([&](size_t m) { return active[m] ? kBeta1 : 1.0; });
    const torch::Tensor decay2 = per_member_values([&](size_t m) { return active[m] ? kBeta2 : 1.0; });
    const torch::Tensor step = per_member_values(
        [&](size_t m) { return active[m] ? -config_.lr / (1 - std::pow(kBeta1, t(m))) : 0.0; });
    const torch::Tensor bias2_sqrt = per_member_values([&](size_t m) { return std::sqrt(1 - std::pow(kBeta2, t(m))); });
    // AdamW: p *= 1 - lr weight_decay (torch's AdamW, before its moments), a resting member's by 1.
    const torch::Tensor shrink =
        per_member_values([&](size_t m) { return active[m] ? 1 - config_.lr * config_.weight_decay : 1.0; });
    for (size_t k = 0; k < params_.size(); ++k) {
      torch::Tensor& p = params_[k];
      torch::Tensor g = p.grad();
      if (!g.defined()) continue;  // torch skips a parameter without a gradient
      if (config_.weight_decay != 0) {
        if (decoupled_) p.mul_(per_member(shrink, p));
        else g.add_(p, config_.weight_decay);
      }
      first_[k].mul_(per_member(decay1, p)).addcmul_(g, per_member(weight, p), 1 - kBeta1);
      second_[k].mul_(per_member(decay2, p)).addcmul_(g * g, per_member(weight, p), 1 - kBeta2);
      const torch::Tensor denom = (second_[k].sqrt() / per_member(bias2_sqrt, p)).add_(kAdamEps);
      p.addcmul_(first_[k] / denom, per_member(step, p));
    }
    return;
  }
  const torch::Tensor decay = per_member_values([&](size_t m) { return active[m] ? config_.momentum : 1.0; });
  const torch::Tensor step = per_member_values([&](size_t m) { return active[m] ? -config_.lr : 0.0; });
  for (size_t k = 0; k < params_.size(); ++k) {
    torch::Tensor& p = params_[k];
    torch::Tensor g = p.grad();
    if (!g.defined()) continue;
    if (config_.weight_decay != 0) g.add_(p, config_.weight_decay);
    if (config_.momentum != 0) {
      // buf = momentum * buf + d (torch's first step, a clone of d, is this from zero).
      first_[k].mul_(per_member(decay, p)).addcmul_(g, per_member(weight, p));
      p.addcmul_(first_[k], per_member(step, p));
    } else {
      p.addcmul_(g, per_member(step, p));
    }
  }
}

}  // namespace fedgrid::jobs

// Masked optimiser steps over stacked parameters (see fused_optimizer.hpp).
#include "sim/jobs/fused_optimizer.hpp"

#include <algorithm>
#include <cmath>

namespace fedgrid::jobs {
namespace {

// torch::optim::AdamOptions' defaults, which make_optimizer keeps.
constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kAdamEps = 1e-8;

// A per-member value [M] shaped to broadcast over a stacked tensor [M, ...].
torch::Tensor per_member(const torch::Tensor& values, const torch::Tensor& like) {
  std::vector<int64_t> shape(size_t(like.dim()), 1);
  shape[0] = like.size(0);
  return values.view(shape);
}

}  // namespace

FusedOptimizer::FusedOptimizer(std::vector<torch::Tensor> params, const OptimizerConfig& config)
    : params_(std::move(params)), config_(config), adam_(config.name == "adam") {
  for (const auto& p : params_) {
    // Zero state is torch's first step exactly: buf = 0 * momentum + d is d, as torch's clone.
    first_.push_back(torch::zeros_like(p));
    if (adam_) second_.push_back(torch::zeros_like(p));
  }
  if (!params_.empty()) steps_.assign(size_t(params_.front().size(0)), 0);
}

void FusedOptimizer::step(const std::vector<bool>& active) {
  torch::NoGradGuard no_grad;
  const bool all = std::all_of(active.begin(), active.end(), [](bool a) { return a; });
  const auto device = params_.front().device();
  torch::Tensor mask;
  if (!all) {
    std::vector<uint8_t> bytes(active.begin(), active.end());
    mask = torch::from_blob(bytes.data(), {int64_t(bytes.size())}, torch::kUInt8).to(device, torch::kBool);
  }
  // Adam's bias corrections per member, in double as torch computes them, then as float.
  torch::Tensor step_size, bias2_sqrt;
  if (adam_) {
    std::vector<double> size(active.size(), 0.0), root(active.size(), 1.0);
    for (size_t m = 0; m < active.size(); ++m) {
      if (!active[m]) continue;
      const double t = double(++steps_[m]);
      size[m] = config_.lr / (1 - std::pow(kBeta1, t));
      root[m] = std::sqrt(1 - std::pow(kBeta2, t));
    }
    step_size = torch::tensor(size, torch::kFloat64).to(device, torch::kFloat32);
    bias2_sqrt = torch::tensor(root, torch::kFloat64).to(device, torch::kFloat32);
  }
  // Where some members sit this batch out, the update is computed whole and kept only for the
  // active ones.
  auto keep = [&](torch::Tensor& target, const torch::Tensor& updated) {
    if (all) target.copy_(updated);
    else target.copy_(torch::where(per_member(mask, target), updated, target));
  };
  for (size_t k = 0; k < params_.size(); ++k) {
    torch::Tensor& p = params_[k];
    const torch::Tensor g = p.grad();
    if (!g.defined()) continue;  // torch skips a parameter without a gradient
    const torch::Tensor d = config_.weight_decay != 0 ? g.add(p, config_.weight_decay) : g;
    if (adam_) {
      const torch::Tensor m1 = first_[k].mul(kBeta1).add(d, 1 - kBeta1);
      const torch::Tensor m2 = second_[k].mul(kBeta2).addcmul(d, d, 1 - kBeta2);
      const torch::Tensor denom = (m2.sqrt() / per_member(bias2_sqrt, p)).add(kAdamEps);
      const torch::Tensor updated = p - per_member(step_size, p) * (m1 / denom);
      keep(first_[k], m1), keep(second_[k], m2), keep(p, updated);
      continue;
    }
    if (config_.momentum != 0) {
      const torch::Tensor buf = first_[k].mul(config_.momentum).add(d);
      keep(first_[k], buf), keep(p, p.add(buf, -config_.lr));
    } else {
      keep(p, p.add(d, -config_.lr));
    }
  }
}

}  // namespace fedgrid::jobs

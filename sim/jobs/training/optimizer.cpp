// The one optimiser (see optimizer.hpp). Each rule below is written once; what differs between a
// net's own parameters and stacked ones is only how a factor reaches a tensor: one number, as
// torch::optim multiplies, or one number per member, where a resting member gets the factor that
// leaves it as it is (decay 1, weight 0, step 0). Per-member factors keep a masked step the same
// in-place arithmetic as a full one, with no temporaries the size of the model: a fused model of a
// thousand hospitals is gigabytes.
#include "sim/jobs/training/optimizer.hpp"

#include <cmath>
#include <optional>
#include <stdexcept>

namespace fedgrid::jobs {
namespace {

constexpr double kAdamEps = 1e-8;  // torch::optim::AdamOptions' default

struct Factor {
  double value = 0;       // a net's own parameters
  torch::Tensor members;  // stacked parameters: [M]
};

// Member factors shaped to broadcast over a stacked tensor like `t`.
torch::Tensor over(const Factor& f, const torch::Tensor& t) {
  std::vector<int64_t> shape(size_t(t.dim()), 1);
  shape[0] = t.size(0);
  return f.members.view(shape);
}

void scale_(torch::Tensor& t, const Factor& f) {
  if (f.members.defined()) t.mul_(over(f, t));
  else t.mul_(f.value);
}

// t += alpha x, for the members `weight` marks active (1; resting 0).
void accumulate_(torch::Tensor& t, const torch::Tensor& x, const Factor& weight, double alpha) {
  if (weight.members.defined()) t.addcmul_(x, over(weight, t), alpha);
  else t.add_(x, alpha);
}

// t += alpha x^2, likewise.
void accumulate_square_(torch::Tensor& t, const torch::Tensor& x, const Factor& weight, double alpha) {
  if (weight.members.defined()) t.addcmul_(x * x, over(weight, t), alpha);
  else t.addcmul_(x, x, alpha);
}

torch::Tensor divided(const torch::Tensor& t, const Factor& f) {
  return f.members.defined() ? t / over(f, t) : t / f.value;
}

// p += step x / y
void step_ratio_(torch::Tensor& p, const torch::Tensor& x, const torch::Tensor& y, const Factor& step) {
  if (step.members.defined()) p.addcmul_(x / y, over(step, p));
  else p.addcdiv_(x, y, step.value);
}

// p += step x
void step_(torch::Tensor& p, const torch::Tensor& x, const Factor& step) {
  if (step.members.defined()) p.addcmul_(x, over(step, p));
  else p.add_(x, step.value);
}

}  // namespace

LocalOptimizer::LocalOptimizer(std::vector<torch::Tensor> params, const OptimizerConfig& config)
    : params_(std::move(params)), config_(config), members_(0) {
  first_.resize(params_.size());
  second_.resize(params_.size());
  steps_.assign(params_.size(), std::vector<int64_t>(1, 0));
}

LocalOptimizer::LocalOptimizer(std::vector<torch::Tensor> params, const OptimizerConfig& config, int64_t members)
    : LocalOptimizer(std::move(params), config) {
  members_ = members;
  const bool adam = config_.kind != Optimizer::Sgd;
  for (size_t k = 0; k < params_.size(); ++k) {
    if (params_[k].size(0) != members) throw std::logic_error("LocalOptimizer: a parameter not stacked by member");
    // Zero state is torch's first step exactly: buf = 0 * momentum + d is d, as torch's clone.
    if (adam || config_.momentum != 0) first_[k] = torch::zeros_like(params_[k]);
    if (adam) second_[k] = torch::zeros_like(params_[k]);
    steps_[k].assign(size_t(members), 0);
  }
}

void LocalOptimizer::zero_grad(bool set_to_none) {
  for (auto& p : params_) {
    torch::Tensor& g = p.mutable_grad();
    if (!g.defined()) continue;
    if (set_to_none) {
      g = torch::Tensor();
    } else {
      g.detach_();
      g.zero_();
    }
  }
}

void LocalOptimizer::step() { step(std::vector<bool>(size_t(std::max<int64_t>(members_, 1)), true)); }

void LocalOptimizer::step(const std::vector<bool>& active) {
  torch::NoGradGuard no_grad;
  if (params_.empty()) return;
  if (members_ == 0 ? active.size() != 1 : int64_t(active.size()) != members_)
    throw std::logic_error("LocalOptimizer::step: one flag per member");
  const auto device = params_.front().device();
  // A factor from its value for member m when active, and its value for a resting one (none:
  // the same, for a factor whose value does not matter there but must stay finite).
  auto factor = [&](auto value_of, std::optional<double> resting) {
    if (members_ == 0) return Factor{value_of(size_t(0)), {}};
    std::vector<double> v(active.size());
    for (size_t m = 0; m < v.size(); ++m) v[m] = active[m] || !resting ? value_of(m) : *resting;
    return Factor{0, torch::tensor(v, torch::kFloat64).to(device, torch::kFloat32)};
  };
  auto constant = [](double v) { return [v](size_t) { return v; }; };
  const Factor weight = factor(constant(1.0), 0.0);
  const double lr = config_.lr, decay = config_.weight_decay;

  if (config_.kind == Optimizer::Sgd) {
    const Factor momentum = factor(constant(config_.momentum), 1.0), step = factor(constant(-1 * lr), 0.0);
    for (size_t k = 0; k < params_.size(); ++k) {
      torch::Tensor& p = params_[k];
      if (!p.grad().defined()) continue;
      torch::Tensor d = p.grad();
      if (decay != 0) d = d.add(p, decay);
      if (config_.momentum != 0) {
        torch::Tensor& buf = first_[k];
        if (!buf.defined()) {
          buf = torch::clone(d).detach();  // torch's first step
        } else {
          scale_(buf, momentum);
          accumulate_(buf, d, weight, 1.0);  // no dampening
        }
        d = buf;
      }
      step_(p, d, step);
    }
    return;
  }

  // Adam and AdamW. The factors depend on the step counts, the same for every parameter of a
  // job that steps them all; computed again only where a parameter's counts differ.
  const double beta1 = config_.beta1, beta2 = config_.beta2;
  const bool decoupled = config_.kind == Optimizer::AdamW;
  const Factor decay1 = factor(constant(beta1), 1.0), decay2 = factor(constant(beta2), 1.0);
  // AdamW shrinks the weights by 1 - lr weight_decay before its moments.
  const Factor shrink = factor(constant(1 - lr * decay), 1.0);
  Factor step, bias2_sqrt;
  const std::vector<int64_t>* factors_for = nullptr;
  for (size_t k = 0; k < params_.size(); ++k) {
    torch::Tensor& p = params_[k];
    if (!p.grad().defined()) continue;
    torch::Tensor g = p.grad();
    std::vector<int64_t>& counts = steps_[k];
    for (size_t m = 0; m < counts.size(); ++m) counts[m] += active[m] ? 1 : 0;
    if (!factors_for || *factors_for != counts) {
      // Bias corrections in double, as torch computes them.
      auto t = [&](size_t m) { return double(std::max<int64_t>(counts[m], 1)); };
      step = factor([&](size_t m) { return -lr / (1 - std::pow(beta1, t(m))); }, 0.0);
      bias2_sqrt = factor([&](size_t m) { return std::sqrt(1 - std::pow(beta2, t(m))); }, std::nullopt);
      factors_for = &counts;
    }
    if (!first_[k].defined()) first_[k] = torch::zeros_like(p), second_[k] = torch::zeros_like(p);
    if (decay != 0) {
      if (decoupled) scale_(p, shrink);
      else g = g.add(p, decay);
    }
    scale_(first_[k], decay1);
    accumulate_(first_[k], g, weight, 1 - beta1);
    scale_(second_[k], decay2);
    accumulate_square_(second_[k], g, weight, 1 - beta2);
    step_ratio_(p, first_[k], divided(second_[k].sqrt(), bias2_sqrt).add_(kAdamEps), step);
  }
}

std::optional<LocalOptimizer::ParamState> LocalOptimizer::state(size_t param) const {
  if (members_ != 0) throw std::logic_error("LocalOptimizer::state: stacked parameters");
  if (!first_.at(param).defined()) return std::nullopt;
  return ParamState{first_[param], second_[param], steps_[param][0]};
}

void LocalOptimizer::set_state(size_t param, ParamState state) {
  if (members_ != 0) throw std::logic_error("LocalOptimizer::set_state: stacked parameters");
  first_.at(param) = std::move(state.first);
  second_[param] = std::move(state.second);
  steps_[param][0] = state.steps;
}

}  // namespace fedgrid::jobs

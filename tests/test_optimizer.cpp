// The one optimiser (sim/jobs/training/optimizer.hpp): on a net's own parameters it steps exactly
// as LibTorch's torch::optim does (bit for bit, so plain runs keep their outputs), for SGD with
// and without momentum, Adam and AdamW, with weight decay; a kept state restored into a fresh
// optimiser continues exactly; on stacked parameters a resting member keeps its weights and state.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include "sim/jobs/training/optimizer.hpp"

namespace fedgrid {
namespace {

std::vector<torch::Tensor> parameters(uint64_t seed) {
  torch::manual_seed(seed);
  return {torch::randn({7, 5}).set_requires_grad(true), torch::randn({5}).set_requires_grad(true)};
}

// Gradients of a fixed objective, the same for both optimisers at each step.
void backward(const std::vector<torch::Tensor>& p, int step) {
  const torch::Tensor x = torch::linspace(-1, 1, 5) * double(step + 1);
  (p[0].matmul(x).pow(2).sum() + (p[1] * x).sin().sum()).backward();
}

std::unique_ptr<torch::optim::Optimizer> torch_optimizer(std::vector<torch::Tensor> p, const OptimizerConfig& c) {
  if (c.kind == Optimizer::Adam)
    return std::make_unique<torch::optim::Adam>(p, torch::optim::AdamOptions(c.lr).weight_decay(c.weight_decay));
  if (c.kind == Optimizer::AdamW)
    return std::make_unique<torch::optim::AdamW>(p, torch::optim::AdamWOptions(c.lr).weight_decay(c.weight_decay));
  return std::make_unique<torch::optim::SGD>(
      p, torch::optim::SGDOptions(c.lr).momentum(c.momentum).weight_decay(c.weight_decay));
}

void expect_steps_as_torch(const OptimizerConfig& c) {
  const auto ours = parameters(3), theirs = parameters(3);
  jobs::LocalOptimizer local(ours, c);
  const auto reference = torch_optimizer(theirs, c);
  for (int step = 0; step < 6; ++step) {
    local.zero_grad(), reference->zero_grad();
    backward(ours, step), backward(theirs, step);
    local.step(), reference->step();
  }
  for (size_t k = 0; k < ours.size(); ++k) {
    EXPECT_TRUE(torch::equal(ours[k], theirs[k])) << "parameter " << k;
    EXPECT_FALSE(torch::equal(ours[k], parameters(3)[k])) << "parameter " << k << " never moved";
  }
}

TEST(LocalOptimizer, SgdWithMomentumStepsAsTorch) { expect_steps_as_torch({Optimizer::Sgd, 0.05, 0.9, 1e-3}); }
TEST(LocalOptimizer, SgdWithoutMomentumStepsAsTorch) { expect_steps_as_torch({Optimizer::Sgd, 0.05, 0, 0}); }
TEST(LocalOptimizer, AdamStepsAsTorch) { expect_steps_as_torch({Optimizer::Adam, 1e-2, 0, 1e-3}); }
TEST(LocalOptimizer, AdamWStepsAsTorch) { expect_steps_as_torch({Optimizer::AdamW, 1e-2, 0, 0.1}); }

TEST(LocalOptimizer, AKeptStateContinuesExactly) {
  for (const OptimizerConfig c : {OptimizerConfig{Optimizer::Adam, 1e-2, 0, 1e-3}, OptimizerConfig{Optimizer::Sgd, 0.05, 0.9, 0}}) {
    const auto straight = parameters(5), split = parameters(5);
    jobs::LocalOptimizer one(straight, c);
    for (int step = 0; step < 4; ++step) one.zero_grad(), backward(straight, step), one.step();
    jobs::LocalOptimizer first(split, c);
    for (int step = 0; step < 2; ++step) first.zero_grad(), backward(split, step), first.step();
    jobs::LocalOptimizer second(split, c);
    for (size_t k = 0; k < split.size(); ++k) second.set_state(k, *first.state(k));
    for (int step = 2; step < 4; ++step) second.zero_grad(), backward(split, step), second.step();
    for (size_t k = 0; k < split.size(); ++k) EXPECT_TRUE(torch::equal(straight[k], split[k]));
  }
}

TEST(LocalOptimizer, ARestingMemberKeepsItsWeightsAndState) {
  for (const OptimizerConfig c :
       {OptimizerConfig{Optimizer::AdamW, 1e-2, 0, 0.1}, OptimizerConfig{Optimizer::Sgd, 0.05, 0.9, 1e-3}}) {
    torch::manual_seed(9);
    const torch::Tensor stacked = torch::randn({3, 4}).set_requires_grad(true);
    const torch::Tensor alone = stacked[1].detach().clone().set_requires_grad(true);
    // Each member's objective depends on its own row only.
    auto objective = [](const torch::Tensor& p) { return (p * torch::arange(1, 5)).pow(2).sum(); };
    jobs::LocalOptimizer members({stacked}, c, 3), single({alone}, c);
    auto step_members = [&](const std::vector<bool>& active) {
      members.zero_grad(true);
      objective(stacked).backward();
      members.step(active);
    };
    auto step_alone = [&] {
      single.zero_grad();
      objective(alone).backward();
      single.step();
    };
    step_members({true, true, true}), step_alone();
    const torch::Tensor rested = stacked.detach().clone();
    step_members({true, false, true});
    EXPECT_TRUE(torch::equal(stacked[1], rested[1]));
    EXPECT_FALSE(torch::equal(stacked[0], rested[0]));
    // Member 1's next step continues its own state, as its job alone would.
    step_members({false, true, false}), step_alone();
    EXPECT_FALSE(torch::equal(stacked[1], rested[1]));
    EXPECT_TRUE(torch::allclose(stacked[1], alone, 1e-6, 1e-7)) << stacked[1] << alone;
  }
}

}  // namespace
}  // namespace fedgrid

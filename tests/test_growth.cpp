// Width-scaled nets match their analytic layout, and DynamicFL's grow/fold round trip on whole
// nets is exact in eval mode, including the fused bias that a bias-free conv hands to its batch norm.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "data/rng.hpp"
#include "models/growth.hpp"
#include "models/model_spec.hpp"
#include "models/nets.hpp"
#include "algorithms/dynamicfl/growth_job.hpp"
#include "sim/jobs/compute.hpp"

namespace fedgrid::models {
namespace {

std::vector<ModelSpec> scaled_specs() {
  std::vector<ModelSpec> specs;
  for (double m : {1.0, 0.5, 0.25}) {
    specs.push_back({"cnn", 1, 28, 28, 10, m});
    specs.push_back({"lenet5", 1, 28, 28, 10, m});
    specs.push_back({"mlp", 1, 28, 28, 10, m});
    specs.push_back({"vgg11", 3, 32, 32, 7, m});
    specs.push_back({"resnet18", 3, 32, 32, 7, m});
    specs.push_back({"resnet10", 3, 32, 32, 5, m * 62 / 64});
  }
  return specs;
}

TEST(Nets, StateLayoutAndConvSitesMatchTorchAtEveryWidth) {
  for (const ModelSpec& spec : scaled_specs()) {
    SCOPED_TRACE(spec_label(spec));
    auto net = make_net(spec);
    std::vector<torch::Tensor> tensors;
    for (const auto& p : net->parameters()) tensors.push_back(p);
    for (const auto& b : net->buffers()) tensors.push_back(b);
    const auto layout = state_layout(spec);
    ASSERT_EQ(layout.size(), tensors.size());
    for (size_t t = 0; t < layout.size(); ++t) {
      std::vector<int64_t> shape;
      for (const auto& axis : layout[t].axes) shape.push_back(axis.channels * axis.block);
      EXPECT_EQ(shape, tensors[t].sizes().vec()) << "tensor " << t;
    }
    const auto sites = conv_sites(spec);
    ASSERT_EQ(sites.size(), net->growable.size());
    for (size_t i = 0; i < sites.size(); ++i) {
      const auto& g = net->growable[i];
      EXPECT_EQ(std::vector<int64_t>({sites[i].in, sites[i].out, sites[i].kernel, sites[i].stride, sites[i].padding}),
                std::vector<int64_t>({g->in, g->out, g->kernel, g->stride, g->padding}));
      EXPECT_EQ(sites[i].bias, g->conv->bias.defined());
    }
  }
}

// Fills every parameter and batch-norm statistic of `module` with fresh values, as training would.
void scramble(torch::nn::Module& module, uint64_t seed) {
  torch::NoGradGuard no_grad;
  Rng rng(seed);
  auto fill = [&](torch::Tensor t, double lo, double hi) {
    std::vector<float> v(size_t(t.numel()));
    for (auto& x : v) x = float(lo + (hi - lo) * rng.uniform());
    t.copy_(torch::from_blob(v.data(), t.sizes(), torch::kFloat32));
  };
  for (auto& p : module.named_parameters()) fill(p.value(), -0.2, 0.2);
  for (auto& b : module.named_buffers()) {
    if (b.key().find("running_var") != std::string::npos) fill(b.value(), 0.5, 1.5);
    else if (b.key().find("running_mean") != std::string::npos) fill(b.value(), -0.1, 0.1);
  }
}

TEST(Growth, FoldedNetEqualsGrownNetInEvalMode) {
  for (const ModelSpec& spec : {ModelSpec{"cnn", 1, 28, 28, 10}, ModelSpec{"lenet5", 1, 28, 28, 10, 0.5},
                                ModelSpec{"vgg11", 3, 32, 32, 7, 0.125}, ModelSpec{"resnet18", 3, 32, 32, 7, 0.25},
                                ModelSpec{"resnet10", 1, 28, 28, 10, 0.5}}) {
    SCOPED_TRACE(spec_label(spec));
    auto net = make_net(spec);
    scramble(*net, 1);
    for (size_t i = 0; i < net->growable.size(); ++i) grow(net->growable[i], 100 + i);
    scramble(*net, 2);  // every branch and statistic moves, as local training moves them
    net->eval();
    Rng rng(3);
    std::vector<float> pixels(size_t(4 * spec.channels * spec.height * spec.width));
    for (auto& x : pixels) x = float(rng.normal());
    const torch::Tensor x = torch::from_blob(pixels.data(), {4, spec.channels, spec.height, spec.width});
    torch::NoGradGuard no_grad;
    const torch::Tensor grown = net->forward(x).clone();
    for (auto& site : net->growable) fold(site);
    const torch::Tensor folded = net->forward(x);
    const double scale = grown.abs().max().item<double>();
    const double diff = (grown - folded).abs().max().item<double>();
    EXPECT_LT(diff, 1e-5 * std::max(1.0, scale)) << "scale " << scale;
    // The folded net is plain again: its state is the plain model's.
    EXPECT_EQ(int64_t(flatten_state(*net).size()), model_cost(spec).state_values);
  }
}

TEST(Growth, GrowingIsLosslessOnAWholeNet) {
  const ModelSpec spec{"resnet18", 3, 32, 32, 7, 0.25};
  auto net = make_net(spec);
  scramble(*net, 4);
  net->eval();
  const torch::Tensor x = torch::ones({2, 3, 32, 32}) * 0.3;
  torch::NoGradGuard no_grad;
  const torch::Tensor plain = net->forward(x).clone();
  for (size_t i = 0; i < net->growable.size(); ++i) {
    grow(net->growable[i], 7 + i);
    scramble(*net->growable[i]->block.ptr(), 50 + i);  // any recalibrated statistics
    absorb_remainder(net->growable[i]);
  }
  net->eval();  // the new blocks too
  EXPECT_LT((net->forward(x) - plain).abs().max().item<double>(), 1e-5 * std::max(1.0, plain.abs().max().item<double>()));
}

TEST(Growth, DecreasePathGrowsWhatLastRoundsSalienceRanksFirst) {
  const ModelSpec spec{"cnn", 1, 16, 16, 3};
  data::Dataset d;
  d.shape = {1, 16, 16};
  d.num_classes = 3;
  Rng rng(5);
  for (int i = 0; i < 48; ++i) {
    for (int p = 0; p < 256; ++p) d.images.push_back(float(rng.normal()));
    d.labels.push_back(i % 3);
  }
  data::Indices all(48);
  for (int i = 0; i < 48; ++i) all[size_t(i)] = i;
  const auto weights = initial_weights(spec, 1);
  const fedgrid::Model model{spec, weights};
  const data::Indices none;
  JobInput job{&model, &d, &all, &none, 16, 0, {Optimizer::Sgd, 0.01, 0.0, 0.0}, 9};
  algorithms::GrowthTraining growth(spec, 2, {1, {0.1, 0.7}, 2, 3});  // site 1 ranks first
  const TrainOutcome out = growth.run(job);
  EXPECT_EQ(growth.grown(), std::vector<int>{1});
  EXPECT_EQ(out.epochs, 2);
  EXPECT_EQ(growth.salience().size(), 2u);
  EXPECT_EQ(int64_t(out.weights.size()), model_cost(spec).state_values);
}

}  // namespace
}  // namespace fedgrid::models

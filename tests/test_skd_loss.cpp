// FedSKD's pieces that need torch: the similarity loss against a worked example of the paper's
// equations, the feature taps against the cost model's, and the mutual-learning job on
// heterogeneous widths.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "models/nets.hpp"
#include "algorithms/fedskd/mutual_job.hpp"
#include "algorithms/fedskd/skd_loss.hpp"

namespace fedgrid {
namespace {

// A worked example of Eqs. 4-9 (Weng, Cai, Zhou 2025): b = 2, h = w = 2; F_DAM has 2 channels,
// F_KTM 3.
torch::Tensor example(int channels, int offset) {
  torch::Tensor f = torch::zeros({2, channels, 2, 2});
  for (int b = 0; b < 2; ++b)
    for (int c = 0; c < channels; ++c)
      for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 2; ++x) f[b][c][y][x] = double(((b + 1) * (c + offset) + 3 * y + x) % 5) / 4.0;
  return f;
}

void expect_matrix(const torch::Tensor& m, std::vector<std::vector<double>> want) {
  ASSERT_EQ(m.size(0), int64_t(want.size()));
  for (size_t i = 0; i < want.size(); ++i)
    for (size_t j = 0; j < want[i].size(); ++j) EXPECT_NEAR(m[int64_t(i)][int64_t(j)].item<double>(), want[i][j], 1e-6);
}

TEST(SkdLoss, MatchesAWorkedExampleByHand) {
  const torch::Tensor dam = example(2, 2), ktm = example(3, 5);
  expect_matrix(skd::similarity(skd::batch_rows(dam)), {{1.217534, 0.719452}, {0.652451, 1.254714}});
  expect_matrix(skd::similarity(skd::batch_rows(ktm)), {{1.138052, 0.839546}, {0.772539, 1.184560}});
  EXPECT_NEAR(skd::loss({dam}, {ktm}, {true, false}).item<double>(), 0.01002070, 1e-7);
  EXPECT_NEAR(skd::loss({dam}, {ktm}, {false, true}).item<double>(), 0.14221035, 1e-7);
  EXPECT_NEAR(skd::loss({dam}, {ktm}, {true, true}).item<double>(), 0.01002070 + 0.14221035, 1e-7);
  // Two stages: the mean over stages, so the same stage twice gives the same loss.
  EXPECT_NEAR(skd::loss({dam, dam}, {ktm, ktm}, {true, true}).item<double>(), 0.01002070 + 0.14221035, 1e-7);
  EXPECT_NEAR(skd::loss({dam}, {dam.clone()}, {true, true}).item<double>(), 0.0, 1e-12);
}

TEST(SkdLoss, GradientsReachBothNetworks) {
  torch::Tensor dam = example(2, 2).requires_grad_(), ktm = example(3, 5).requires_grad_();
  skd::loss({dam}, {ktm}, {true, true}).backward();
  EXPECT_GT(dam.grad().abs().sum().item<double>(), 0);
  EXPECT_GT(ktm.grad().abs().sum().item<double>(), 0);
}

TEST(SkdLoss, MapsOfDifferentSizesAreAlignedToTheDams) {
  torch::manual_seed(3);
  const torch::Tensor dam = torch::rand({4, 3, 4, 4}), ktm = torch::rand({4, 5, 8, 8});
  const torch::Tensor value = skd::loss({dam}, {ktm}, {false, true});
  EXPECT_TRUE(std::isfinite(value.item<double>()));
  EXPECT_GT(value.item<double>(), 0);
}

TEST(FeatureTaps, TorchReturnsTheStagesTheCostModelLists) {
  torch::manual_seed(1);
  for (const models::ModelSpec& spec : {models::ModelSpec{"cnn", 1, 28, 28, 10}, models::ModelSpec{"lenet5", 1, 28, 28, 10},
                                        models::ModelSpec{"mlp", 1, 12, 12, 10}, models::ModelSpec{"vgg11", 3, 32, 32, 10},
                                        models::ModelSpec{"resnet18", 3, 32, 32, 10},
                                        models::ModelSpec{"resnet10", 3, 64, 64, 5, 62.0 / 64},
                                        models::ModelSpec{"resnet10", 1, 28, 28, 10}}) {
    SCOPED_TRACE(models::spec_label(spec) + " at " + std::to_string(spec.height));
    auto net = models::make_net(spec);
    net->eval();
    std::vector<torch::Tensor> taps;
    const torch::Tensor x = torch::rand({2, spec.channels, spec.height, spec.width});
    EXPECT_TRUE(torch::equal(net->forward_taps(x, taps), net->forward(x)));  // tapping changes nothing
    const auto want = models::feature_taps(spec);
    ASSERT_EQ(taps.size(), want.size());
    for (size_t i = 0; i < taps.size(); ++i) {
      EXPECT_EQ(taps[i].sizes(), (std::vector<int64_t>{2, want[i].channels, want[i].height, want[i].width})) << i;
    }
    EXPECT_EQ(net->classifier->weight.size(0), spec.num_classes);
  }
  // resnet10's stages at 224 x 224, width 62: layer1..4 = 62/124/248/496 channels at 56/28/14/7.
  const auto taps = models::feature_taps({"resnet10", 3, 224, 224, 5, 62.0 / 64});
  ASSERT_EQ(taps.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(taps[i].channels, 62 << i);
    EXPECT_EQ(taps[i].height, 56 >> i);
  }
}

// A small synthetic dataset: class k's images are noise around a level k / classes.
data::Dataset blobs(int64_t n, int channels, int side, int classes) {
  data::Dataset d;
  d.shape = {channels, side, side};
  d.num_classes = classes;
  torch::manual_seed(5);
  const torch::Tensor noise = torch::rand({n, int64_t(channels) * side * side});
  for (int64_t i = 0; i < n; ++i) {
    d.labels.push_back(i % classes);
    for (int64_t p = 0; p < noise.size(1); ++p)
      d.images.push_back(float(0.5 * noise[i][p].item<double>() + double(i % classes) / classes));
  }
  return d;
}

// Two resnet10s of FedSKD's widths 64 and 62 learn together: the job runs the planned
// mini-batches, distillation changes what the DAM learns, and the cached KTM's classifier is
// trainable again afterwards.
TEST(MutualTraining, HeterogeneousWidthsTrainAndDistil) {
  const data::Dataset d = blobs(40, 3, 32, 4);
  data::Indices all(40);
  for (int64_t i = 0; i < 40; ++i) all[size_t(i)] = i;
  const models::ModelSpec wide{"resnet10", 3, 32, 32, 4}, narrow{"resnet10", 3, 32, 32, 4, 62.0 / 64};
  const std::vector<float> w_dam = initial_weights(narrow, 1), w_ktm = initial_weights(wide, 2);
  const Model dam{narrow, w_dam}, ktm{wide, w_ktm};
  const data::Indices none;
  auto job = [&](double gamma) {
    const JobInput input{&dam, &d, &all, &none, 8, 7, {Optimizer::Adam, 1e-3, 0, 0}, 9};
    algorithms::MutualLearning mutual(&ktm, algorithms::SkdPlan{gamma, true, true, {0, 1, 2, 3}}, 1);
    return mutual.run(input);
  };
  const TrainOutcome distilled = job(100), plain = job(0);
  EXPECT_EQ(distilled.steps, 7);
  EXPECT_EQ(int64_t(batch_plan(40, 8, 1, 7, models::batchnorm_on_1x1(wide)).size()), distilled.steps);
  EXPECT_EQ(distilled.weights.size(), size_t(models::model_cost(narrow).state_values));
  EXPECT_NE(distilled.weights, w_dam);
  EXPECT_NE(distilled.weights, plain.weights);
  EXPECT_TRUE(std::isfinite(distilled.mean_loss));
}

}  // namespace
}  // namespace fedgrid

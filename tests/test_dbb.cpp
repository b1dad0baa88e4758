// The Diverse Branch Block folds exactly into one KxK conv in eval mode, growing a plain conv into
// it is lossless, its draws are deterministic, and it trains like any module.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "data/rng.hpp"
#include "models/dbb.hpp"

namespace fedgrid::models {
namespace {

using torch::Tensor;

struct Case {
  std::string name;
  ConvGeometry g;
};

std::vector<Case> geometries() {
  return {
      {"3x3 s1 p1 4->4", {.in = 4, .out = 4, .kernel = 3, .stride = 1, .padding = 1}},
      {"3x3 s2 p1 3->5", {.in = 3, .out = 5, .kernel = 3, .stride = 2, .padding = 1}},
      {"3x3 s1 p1 3->6", {.in = 3, .out = 6, .kernel = 3, .stride = 1, .padding = 1}},
      {"5x5 s1 p2 4->4", {.in = 4, .out = 4, .kernel = 5, .stride = 1, .padding = 2}},
      {"5x5 s1 p0 3->4", {.in = 3, .out = 4, .kernel = 5, .stride = 1, .padding = 0}},
  };
}

std::string describe(const std::vector<DbbBranch>& branches) {
  std::string s;
  for (DbbBranch b : branches) {
    if (!s.empty()) s += '+';
    s += branch_name(b);
  }
  return s;
}

// Tests draw from fedgrid::Rng too, so they neither use nor disturb torch's global generator.
Tensor normal(const std::vector<int64_t>& shape, Rng& rng, double sd = 1.0) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<float> v(n);
  for (float& x : v) x = float(sd * rng.normal());
  return torch::from_blob(v.data(), shape, torch::kFloat32).clone();
}

Tensor uniform(const std::vector<int64_t>& shape, Rng& rng, double lo, double hi) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<float> v(n);
  for (float& x : v) x = float(lo + (hi - lo) * rng.uniform());
  return torch::from_blob(v.data(), shape, torch::kFloat32).clone();
}

Tensor plain_weight(const ConvGeometry& g, Rng& rng) {
  return normal({g.out, g.in, g.kernel, g.kernel}, rng, 1.0 / std::sqrt(double(g.in * g.kernel * g.kernel)));
}

// Random running statistics (positive variances), as a recalibration would leave them.
void randomize_stats(DbbConv& block, Rng& rng) {
  torch::NoGradGuard no_grad;
  for (const auto& bn : block->batchnorms()) {
    bn->running_mean.copy_(normal({bn->options.num_features()}, rng, 0.5));
    bn->running_var.copy_(uniform({bn->options.num_features()}, rng, 0.5, 2.0));
  }
}

// Every conv weight (scaled by fan-in so activations stay O(1)), conv bias, BN affine and running
// statistic random.
void randomize(DbbConv& block, Rng& rng) {
  torch::NoGradGuard no_grad;
  for (const auto& p : block->named_parameters()) {
    Tensor t = p.value();
    if (t.dim() == 4) t.copy_(normal(t.sizes().vec(), rng, 1.0 / std::sqrt(double(t[0].numel()))));
    if (p.key() == "dbb_kxk.bias") t.copy_(normal(t.sizes().vec(), rng, 0.5));
  }
  for (const auto& bn : block->batchnorms()) {
    bn->weight.copy_(uniform({bn->options.num_features()}, rng, 0.5, 1.5));
    bn->bias.copy_(normal({bn->options.num_features()}, rng, 0.5));
  }
  randomize_stats(block, rng);
}

double max_abs_diff(const Tensor& a, const Tensor& b) { return (a - b).abs().max().item<double>(); }

Tensor fused_conv(const Tensor& x, const Tensor& w, const Tensor& b, const ConvGeometry& g) {
  return torch::conv2d(x, w, b, g.stride, g.padding);
}

TEST(Dbb, FoldIsExactForEveryBranchAndTheDefaultMask) {
  Rng rng(1);
  double worst = 0, worst_perturbed = 1e9;
  for (const Case& c : geometries()) {
    std::vector<std::vector<DbbBranch>> masks;
    for (DbbBranch b : default_branches(c.g))
      if (b != DbbBranch::KxK) masks.push_back({DbbBranch::KxK, b});
    masks.push_back(default_branches(c.g));
    for (const auto& mask : masks) {
      SCOPED_TRACE(c.name + " " + describe(mask));
      DbbConv block(c.g, mask);
      randomize(block, rng);
      block->eval();
      torch::NoGradGuard no_grad;
      const Tensor x = normal({2, c.g.in, 10, 10}, rng);  // 10: stride 2 floors an odd extent
      const Tensor y = block->forward(x);
      const auto fused = block->fuse();
      const Tensor reference = fused_conv(x, fused.weight, fused.bias, c.g);
      ASSERT_EQ(y.sizes(), reference.sizes());
      EXPECT_GT(y.abs().max().item<double>(), 1.0);  // outputs O(1): 1e-5 is a tight tolerance
      const double diff = max_abs_diff(y, reference);
      EXPECT_LT(diff, 1e-5);
      worst = std::max(worst, diff);
      // The tolerance resolves a 1e-4 error in a single tap of the fused kernel.
      Tensor perturbed = fused.weight.clone();
      perturbed[0][0][0][0] += 1e-4;
      const double perturbed_diff = max_abs_diff(y, fused_conv(x, perturbed, fused.bias, c.g));
      EXPECT_GT(perturbed_diff, 1e-5);
      worst_perturbed = std::min(worst_perturbed, perturbed_diff);
    }
  }
  std::printf("fold: max |forward - fused conv| = %.3g; with one tap off by 1e-4, min = %.3g\n", worst,
              worst_perturbed);
}

TEST(Dbb, GrowingAPlainConvIsLossless) {
  Rng rng(2);
  double worst_out = 0, worst_kernel = 0;
  for (const Case& c : geometries())
    for (bool with_bias : {true, false})
      for (bool real_recalibration : {true, false}) {
        SCOPED_TRACE(c.name + (with_bias ? " bias" : " no bias") + (real_recalibration ? " recal" : " random stats"));
        const Tensor w0 = plain_weight(c.g, rng);
        const Tensor b0 = with_bias ? normal({c.g.out}, rng, 0.5) : Tensor();
        DbbConv block(c.g, default_branches(c.g));
        block->init_from_plain(w0, b0, 7);
        if (real_recalibration) {  // step 2 as DyRep runs it: block in eval, BNs cumulative in train
          block->eval();
          for (auto& bn : block->batchnorms()) {
            bn->train();
            bn->options.momentum(c10::nullopt);
          }
          torch::NoGradGuard no_grad;
          for (int i = 0; i < 3; ++i) block->forward(normal({8, c.g.in, 10, 10}, rng));
        } else {
          randomize_stats(block, rng);
        }
        block->eval();
        torch::NoGradGuard no_grad;
        const Tensor x = normal({2, c.g.in, 10, 10}, rng);
        const Tensor reference = fused_conv(x, w0, b0, c.g);
        EXPECT_GT(max_abs_diff(block->forward(x), reference), 1e-4);  // not yet absorbed: the test bites
        block->absorb_remainder(w0, b0);

        const double out_diff = max_abs_diff(block->forward(x), reference);
        EXPECT_LT(out_diff, 1e-5);
        const auto fused = block->fuse();
        const double kernel_diff = std::max(max_abs_diff(fused.weight, w0),
                                            max_abs_diff(fused.bias, with_bias ? b0 : torch::zeros({c.g.out})));
        EXPECT_LT(kernel_diff, 1e-6);
        worst_out = std::max(worst_out, out_diff);
        worst_kernel = std::max(worst_kernel, kernel_diff);

        // The KxK BN is the identity exactly: sqrt(var + eps) == 1 in float.
        auto* kxk_bn = block->named_modules()["dbb_kxk.bn"]->as<torch::nn::BatchNorm2d>();
        ASSERT_NE(kxk_bn, nullptr);
        EXPECT_TRUE((kxk_bn->running_var + kxk_bn->options.eps()).eq(1).all().item<bool>());
        EXPECT_TRUE(kxk_bn->running_mean.eq(0).all().item<bool>());
      }
  std::printf("growth: max |forward - plain conv| = %.3g, max |fuse() - (w0, b0)| = %.3g\n", worst_out, worst_kernel);
}

TEST(Dbb, DefaultBranchesFollowTheGeometry) {
  using B = DbbBranch;
  const std::vector<B> all{B::OneByOne, B::OneByOneKxK, B::OneByOneAvg, B::KxK, B::OneByK, B::KByOne, B::Identity};
  const std::vector<B> no_identity{B::OneByOne, B::OneByOneKxK, B::OneByOneAvg, B::KxK, B::OneByK, B::KByOne};
  const std::vector<B> reduced{B::OneByOneKxK, B::OneByOneAvg, B::KxK};
  const std::vector<std::vector<B>> expected{all, no_identity, no_identity, all, reduced};
  for (size_t i = 0; i < expected.size(); ++i) {
    const Case c = geometries()[i];
    EXPECT_EQ(describe(default_branches(c.g)), describe(expected[i])) << c.name;
  }
  EXPECT_EQ(describe(default_branches({.in = 4, .out = 4, .kernel = 3, .stride = 2, .padding = 1})),
            describe(no_identity));
  EXPECT_EQ(describe(default_branches({.in = 4, .out = 4, .kernel = 4, .stride = 1, .padding = 2})),
            describe(reduced));  // even kernel: nothing is centred
  EXPECT_EQ(describe(all), "1x1+1x1-kxk+1x1-avg+kxk+1xk+kx1+identity");

  // Branches come back in canonical order whatever order they were given in.
  const ConvGeometry g3{.in = 4, .out = 4};
  EXPECT_EQ(describe(DbbConv(g3, std::vector<B>{B::Identity, B::KxK, B::OneByOne})->branches()), "1x1+kxk+identity");

  const ConvGeometry g5{.in = 3, .out = 4, .kernel = 5, .stride = 1, .padding = 0};
  EXPECT_THROW(DbbConv(g5, std::vector<B>{B::KxK, B::OneByOne}), std::invalid_argument);  // 1x1 misaligned at pad 0
  EXPECT_THROW(DbbConv(geometries()[2].g, std::vector<B>{B::KxK, B::Identity}), std::invalid_argument);  // in != out
  EXPECT_THROW(DbbConv(g3, std::vector<B>{B::OneByOne, B::OneByOneAvg}), std::invalid_argument);  // no kxk
  EXPECT_THROW(DbbConv(g3, std::vector<B>{B::KxK, B::OneByOne, B::OneByOne}), std::invalid_argument);
  DbbConv block(g3, std::vector<B>{B::KxK});
  EXPECT_THROW(block->init_from_plain(torch::zeros({4, 4, 5, 5}), {}, 1), std::invalid_argument);
}

TEST(Dbb, DrawsAreDeterministicAndOffTorchsGenerator) {
  const ConvGeometry g = geometries()[0].g;
  Rng rng(3);
  const Tensor w0 = plain_weight(g, rng), b0 = normal({g.out}, rng);

  torch::manual_seed(5);
  const Tensor expected_draw = torch::rand({8});
  torch::manual_seed(5);
  DbbConv a(g, default_branches(g)), b(g, default_branches(g)), c(g, default_branches(g));
  a->init_from_plain(w0, b0, 11);
  b->init_from_plain(w0, b0, 11);
  c->init_from_plain(w0, b0, 12);
  EXPECT_TRUE(torch::equal(torch::rand({8}), expected_draw));  // torch's global generator untouched

  const auto pa = a->named_parameters(), pb = b->named_parameters(), pc = c->named_parameters();
  ASSERT_EQ(pa.keys(), pb.keys());
  bool seed_matters = false;
  for (size_t i = 0; i < pa.size(); ++i) {
    EXPECT_TRUE(torch::equal(pa[i].value(), pb[i].value())) << pa[i].key();
    if (!torch::equal(pa[i].value(), pc[i].value())) seed_matters = true;
  }
  EXPECT_TRUE(seed_matters);
  const auto ba = a->named_buffers(), bb = b->named_buffers();
  ASSERT_EQ(ba.keys(), bb.keys());
  for (size_t i = 0; i < ba.size(); ++i) EXPECT_TRUE(torch::equal(ba[i].value(), bb[i].value())) << ba[i].key();

  // The constructor's own draws depend on its seed only.
  const auto w = [&](uint64_t seed) {
    return DbbConv(g, default_branches(g), seed)->named_parameters()["dbb_1x1.weight"];
  };
  EXPECT_TRUE(torch::equal(w(4), w(4)));
  EXPECT_FALSE(torch::equal(w(4), w(5)));
}

TEST(Dbb, TrainsWithGradientsInEveryBranch) {
  for (const Case& c : {geometries()[0], geometries()[4]}) {
    SCOPED_TRACE(c.name);
    Rng rng(4);
    DbbConv block(c.g, default_branches(c.g));
    block->init_from_plain(plain_weight(c.g, rng), normal({c.g.out}, rng), 9);
    block->train();
    const Tensor y = block->forward(normal({4, c.g.in, 10, 10}, rng));
    // A random weighting: BN in train mode makes a plain sum's gradient vanish before it.
    (y * normal(y.sizes().vec(), rng)).sum().backward();
    for (const auto& p : block->named_parameters()) {
      ASSERT_TRUE(p.value().grad().defined()) << p.key();
      EXPECT_GT(p.value().grad().abs().sum().item<double>(), 0) << p.key();
      EXPECT_TRUE(torch::isfinite(p.value().grad()).all().item<bool>()) << p.key();
    }
    for (const auto& bn : block->batchnorms()) EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 1);
  }
}

// In train mode BNAndPad pads with its BN's affine image of zero under the batch statistics, so the
// 1x1-kxk branch is batch-stat BN applied to a zero-padded 1x1 conv, then the KxK conv.
TEST(Dbb, TrainModePadIsTheBatchNormImageOfZero) {
  const ConvGeometry g{.in = 3, .out = 5, .kernel = 3, .stride = 2, .padding = 1};
  Rng rng(5);
  DbbConv block(g, std::vector<DbbBranch>{DbbBranch::KxK, DbbBranch::OneByOneKxK});
  randomize(block, rng);
  block->train();
  const Tensor x = normal({4, g.in, 10, 10}, rng);
  const Tensor y = block->forward(x);

  torch::NoGradGuard no_grad;
  auto p = block->named_parameters();
  const auto bn_train = [](const Tensor& t, const Tensor& gamma, const Tensor& beta) {
    return torch::batch_norm(t, gamma, beta, {}, {}, /*training=*/true, 0.1, 1e-5, false);
  };
  const Tensor z = torch::conv2d(x, p["dbb_1x1_kxk.weight"]);
  const Tensor mean = z.mean({0, 2, 3}), var = z.var(torch::IntArrayRef{0, 2, 3}, false);
  const Tensor scale = p["dbb_1x1_kxk.pad_bn.weight"] / (var + 1e-5).sqrt();
  const Tensor shift = p["dbb_1x1_kxk.pad_bn.bias"] - mean * scale;
  const Tensor mid = torch::constant_pad_nd(z, {1, 1, 1, 1}) * scale.view({1, -1, 1, 1}) + shift.view({1, -1, 1, 1});
  const Tensor reference =
      bn_train(torch::conv2d(x, p["dbb_kxk.weight"], p["dbb_kxk.bias"], 2, 1), p["dbb_kxk.bn.weight"],
               p["dbb_kxk.bn.bias"]) +
      bn_train(torch::conv2d(mid, p["dbb_1x1_kxk.weight_kxk"], {}, 2), p["dbb_1x1_kxk.bn.weight"],
               p["dbb_1x1_kxk.bn.bias"]);
  EXPECT_LT(max_abs_diff(y, reference), 1e-5);
}

}  // namespace
}  // namespace fedgrid::models

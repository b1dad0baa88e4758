// DynamicFL's baselines built the paper's way (scenarios/dynamicfl/paper_protocol_*.yaml): the
// global model is the strong tier's, pruned per tier so that every tier trains, per sample and
// epoch, the FLOPs DynamicFL has it train: the plain cnn's probe epoch plus E - 1 epochs with its
// grown convs. Checked here by hand: the cnn's FLOPs and the diverse-branch blocks' extra FLOPs
// written out layer by layer, against the cost model and against the widths the files ship.
#include <gtest/gtest.h>

#include <cmath>

#include "models/model_spec.hpp"
#include "sim/scenario/scenario.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

// cnn / cnn_bn on 1x28x28, 10 classes, forward FLOPs per sample (2 per multiply-add): conv1
// 1 -> c1, 5x5, 24x24 out; conv2 c1 -> c2, 5x5, 8x8 out; fc1 c2*4*4 -> f; fc2 f -> 10.
double cnn_flops_by_hand(double width) {
  const double c1 = std::ceil(32 * width - 1e-9), c2 = std::ceil(64 * width - 1e-9), f = std::ceil(512 * width - 1e-9);
  return 2 * (c1 * 25 * 576 + c2 * c1 * 25 * 64 + c2 * 16 * f + f * 10);
}

// Values of the cnn_bn state: conv weights (no bias), each BN's weight, bias, running mean and
// variance and batch counter, the two linear layers with biases.
double cnn_bn_values_by_hand(double width) {
  const double c1 = std::ceil(32 * width - 1e-9), c2 = std::ceil(64 * width - 1e-9), f = std::ceil(512 * width - 1e-9);
  return c1 * 25 + (4 * c1 + 1) + c2 * c1 * 25 + (4 * c2 + 1) + (c2 * 16 * f + f) + (f * 10 + 10);
}

// DyRep's default block at a 5x5 conv without padding adds a 1x1-KxK branch (a 1x1 conv in -> in
// at the input's resolution, then the KxK conv) and a 1x1-avg branch (a 1x1 conv in -> out).
const double kGrowConv1 = 2 * (1 * 1 * 784 + 32 * 1 * 25 * 576 + 32 * 1 * 784);          // 973,344
const double kGrowConv2 = 2 * (32 * 32 * 144 + 64 * 32 * 25 * 64 + 64 * 32 * 144);      // 7,438,336

models::ModelSpec cnn_bn(double width) { return {"cnn_bn", 1, 28, 28, 10, width}; }

TEST(DynamicFLBaselines, CostModelMatchesTheHandCount) {
  for (double w : {1.0, 1.3125, 1.344}) {
    EXPECT_EQ(models::model_cost(cnn_bn(w)).forward_flops, cnn_flops_by_hand(w)) << w;
    EXPECT_EQ(double(models::model_cost(cnn_bn(w)).state_values), cnn_bn_values_by_hand(w)) << w;
  }
  EXPECT_EQ(cnn_flops_by_hand(1.0), 8534016.0);
  const auto sites = models::conv_sites(cnn_bn(1.0));
  ASSERT_EQ(sites.size(), 2u);
  EXPECT_EQ(models::dbb_extra_flops(sites[0]), kGrowConv1);
  EXPECT_EQ(models::dbb_extra_flops(sites[1]), kGrowConv2);
}

// Each tier's width in the shipped baselines against DynamicFL's per-sample, per-epoch average
// with E epochs (one plain, E - 1 grown): weak exactly the plain cnn, medium (conv2 grown) and
// strong (both grown) within 1.5%, the strong tier's width being the global model's.
TEST(DynamicFLBaselines, EveryTierTrainsWhatDynamicFLHasItTrain) {
  for (const char* method : {"heterofl", "fedrolex", "feddf"}) {
    const Scenario s =
        load_scenario(std::string(test::source_dir()) + "/scenarios/dynamicfl/paper_protocol_" + method + ".yaml");
    const double epochs = s.training.local_epochs;
    const double plain = cnn_flops_by_hand(1.0);
    ASSERT_EQ(s.model.arch, "cnn_bn") << method;
    const double weak = s.model.tiers.at("weak").width_multiplier;
    const double medium = s.model.tiers.at("medium").width_multiplier;
    const double strong = s.model.tiers.count("strong") ? s.model.tiers.at("strong").width_multiplier
                                                        : s.model.width_multiplier;
    EXPECT_EQ(cnn_flops_by_hand(weak), plain) << method;
    EXPECT_EQ(cnn_bn_values_by_hand(weak), cnn_bn_values_by_hand(1.0)) << method << ": weak bytes";
    const double medium_target = plain + (epochs - 1) / epochs * kGrowConv2;
    const double strong_target = plain + (epochs - 1) / epochs * (kGrowConv1 + kGrowConv2);
    EXPECT_NEAR(cnn_flops_by_hand(medium) / medium_target, 1.0, 0.015) << method;
    EXPECT_NEAR(cnn_flops_by_hand(strong) / strong_target, 1.0, 0.015) << method;
    if (std::string(method) != "feddf") EXPECT_EQ(s.model.width_multiplier, strong) << method << ": global = strong";
    // Bytes: a wider slice is a bigger payload, which DynamicFL (plain cnn from every tier) avoids.
    EXPECT_NEAR(cnn_bn_values_by_hand(medium) / cnn_bn_values_by_hand(1.0), 1.72, 0.01) << method;
    EXPECT_NEAR(cnn_bn_values_by_hand(strong) / cnn_bn_values_by_hand(1.0), 1.83, 0.01) << method;
  }
}

}  // namespace
}  // namespace fedgrid

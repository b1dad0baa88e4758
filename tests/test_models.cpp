// The torch nets agree with the analytic cost model and (de)serialise their state exactly.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "models/model_spec.hpp"
#include "models/nets.hpp"

namespace fedgrid::models {
namespace {

std::vector<ModelSpec> all_specs() {
  std::vector<ModelSpec> specs;
  for (const std::string& arch : known_archs()) {
    if (arch != "vgg11") specs.push_back({.arch = arch});  // vgg11's five pools need 32x32
    specs.push_back({.arch = arch, .channels = 3, .height = 32, .width = 32});
  }
  specs.push_back({.arch = "cnn", .height = 16, .width = 20, .num_classes = 7});  // smallest cnn
  return specs;
}

std::string describe(const ModelSpec& s) {
  return s.arch + " " + std::to_string(s.channels) + "x" + std::to_string(s.height) + "x" +
         std::to_string(s.width) + "/" + std::to_string(s.num_classes);
}

int64_t state_numel(Net& net) {
  int64_t total = 0;
  for (const auto& p : net.parameters()) total += p.numel();
  for (const auto& b : net.buffers()) total += b.numel();
  return total;
}

TEST(Nets, SizeMatchesCostModel) {
  for (const ModelSpec& spec : all_specs()) {
    SCOPED_TRACE(describe(spec));
    auto net = make_net(spec);
    EXPECT_EQ(state_numel(*net), model_cost(spec).state_values);
    EXPECT_EQ(static_cast<int64_t>(flatten_state(*net).size()), model_cost(spec).state_values);
  }
}

TEST(Nets, ForwardGivesOneLogitPerClass) {
  for (const ModelSpec& spec : all_specs()) {
    SCOPED_TRACE(describe(spec));
    auto net = make_net(spec);
    const torch::Tensor batch = torch::randn({5, spec.channels, spec.height, spec.width});
    const torch::Tensor logits = net->forward(batch);
    EXPECT_EQ(logits.sizes().vec(), (std::vector<int64_t>{5, spec.num_classes}));
    EXPECT_TRUE(torch::isfinite(logits).all().item<bool>());
  }
}

TEST(Nets, FlattenLoadRoundTripIsExact) {
  for (const ModelSpec& spec : all_specs()) {
    SCOPED_TRACE(describe(spec));
    auto source = make_net(spec);
    auto target = make_net(spec);  // different draws from the generator
    const std::vector<float> values = flatten_state(*source);
    ASSERT_TRUE(flatten_state(*target) != values);

    const void* weight_storage = target->parameters().front().data_ptr();
    load_state(*target, values);
    EXPECT_TRUE(flatten_state(*target) == values);
    // Loaded in place, as leaves without history, so an optimiser built earlier stays valid.
    EXPECT_EQ(target->parameters().front().data_ptr(), weight_storage);
    for (const auto& p : target->parameters()) {
      EXPECT_TRUE(p.is_leaf());
      EXPECT_TRUE(p.requires_grad());
      EXPECT_EQ(p.grad_fn(), nullptr);
    }
    // Equal state means equal function.
    const torch::Tensor x = torch::randn({2, spec.channels, spec.height, spec.width});
    EXPECT_TRUE(torch::equal(source->forward(x), target->forward(x)));
  }
}

TEST(Nets, LoadStateRejectsWrongSize) {
  auto net = make_net({.arch = "lenet5"});
  std::vector<float> values = flatten_state(*net);
  values.push_back(0.f);
  EXPECT_THROW(load_state(*net, values), std::invalid_argument);
  values.resize(values.size() - 2);
  EXPECT_THROW(load_state(*net, values), std::invalid_argument);
  EXPECT_THROW(load_state(*net, {}), std::invalid_argument);
}

TEST(Nets, SameSeedGivesSameWeights) {
  for (const ModelSpec& spec : all_specs()) {
    SCOPED_TRACE(describe(spec));
    torch::manual_seed(42);
    const std::vector<float> first = flatten_state(*make_net(spec));
    torch::manual_seed(42);
    const std::vector<float> second = flatten_state(*make_net(spec));
    EXPECT_TRUE(first == second);
    torch::manual_seed(43);
    EXPECT_TRUE(flatten_state(*make_net(spec)) != first);
  }
}

TEST(Nets, MakeNetRejectsBadSpecs) {
  EXPECT_THROW(make_net({.arch = "resnet"}), std::invalid_argument);
  EXPECT_THROW(make_net({.arch = "cnn", .height = 15, .width = 15}), std::invalid_argument);
  EXPECT_THROW(make_net({.arch = "lenet5", .height = 8, .width = 8}), std::invalid_argument);
}

}  // namespace
}  // namespace fedgrid::models

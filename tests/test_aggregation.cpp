#include <gtest/gtest.h>

#include "algorithms/aggregation.hpp"

namespace fedgrid::algorithms {
namespace {

Update update(int hospital, int64_t samples, std::vector<float> w) {
  return Update{hospital, Model{{"mlp", 1, 4, 4, 2}, std::move(w)}, samples, 1, 0.0};
}

TEST(Aggregation, WeightedAverageByHand) {
  // Weights 1/4 and 3/4: (1*1 + 3*5)/4 = 4, (1*2 + 3*(-2))/4 = -1, (1*0 + 3*8)/4 = 6.
  auto avg = weighted_average({update(0, 10, {1, 2, 0}), update(1, 30, {5, -2, 8})});
  ASSERT_EQ(avg.weights.size(), 3u);
  EXPECT_FLOAT_EQ(avg.weights[0], 4.0f);
  EXPECT_FLOAT_EQ(avg.weights[1], -1.0f);
  EXPECT_FLOAT_EQ(avg.weights[2], 6.0f);
  EXPECT_EQ(avg.spec.arch, "mlp");
}

TEST(Aggregation, FlopsAreTwoPerValuePerUpdate) {
  EXPECT_DOUBLE_EQ(weighted_average_flops({update(0, 1, {1, 2, 3}), update(1, 1, {1, 2, 3})}), 12.0);
  EXPECT_DOUBLE_EQ(weighted_average_flops({}), 0.0);
}

TEST(Aggregation, RejectsMismatchedOrEmptyUpdates) {
  EXPECT_THROW(weighted_average({}), std::logic_error);
  EXPECT_THROW(weighted_average({update(0, 1, {1, 2}), update(1, 1, {1})}), std::logic_error);
  EXPECT_THROW(weighted_average({update(0, 0, {1})}), std::logic_error);
}

}  // namespace
}  // namespace fedgrid::algorithms

// The declared rules between scenario keys (sim/scenario/cross_key_rules.hpp): each names keys
// the key table declares, and a scenario that breaks several hears of each, in the list's order.
#include <gtest/gtest.h>

#include "sim/core/input_error.hpp"
#include "sim/scenario/cross_key_rules.hpp"
#include "sim/scenario/key_table.hpp"
#include "sim/scenario/scenario.hpp"

namespace fedgrid {
namespace {

TEST(CrossKeyRules, EveryRuleRelatesDeclaredKeys) {
  ASSERT_FALSE(cross_key_rules().empty());
  for (const CrossKeyRule& rule : cross_key_rules()) {
    ASSERT_FALSE(rule.keys.empty());
    for (const std::string& key : rule.keys) EXPECT_NE(find_key(key), nullptr) << key;
  }
  // A drawn figure's rules name its distribution's keys (relative) or a scenario key.
  for (const FigureDrawRule& rule : figure_draw_rules())
    for (const std::string& key : rule.keys) {
      const bool absolute = key.find('.') != std::string::npos;
      EXPECT_NE(find_key(absolute ? key : "platform.hospitals[].vary.samples." + key), nullptr) << key;
    }
}

TEST(CrossKeyRules, EveryBrokenRuleIsReportedAtItsFirstKey) {
  const std::string yaml =
      "platform:\n"
      "  hospitals: [{tier: weak, vary: {speed_flops: {dist: uniform, min: 5}}}]\n"
      "  hospital_count: 3\n"
      "training: {lr_schedule: cosine, lr: 0.01, lr_min: 0.1}\n"
      "timing: {network: fluid, cohorts: true}\n";
  try {
    load_scenario_text(yaml, "x.yaml");
    FAIL() << "no error";
  } catch (const InputError& e) {
    std::vector<std::string> got;
    for (const auto& p : e.problems()) got.push_back(std::to_string(p.line) + " " + p.key + ": " + p.message);
    EXPECT_EQ(got, (std::vector<std::string>{
                       "4 training.lr_min: must not exceed training.lr (0.010000): the cosine schedule decays from "
                       "lr to lr_min",
                       "3 platform.hospital_count: needs platform.tier_ratio",
                       "5 timing.cohorts: needs training.mode: timing-only (a real run trains on real data)",
                       "5 timing.cohorts: needs timing.network: cm02 (under LV08 a representative's RTT weight would "
                       "differ from its members')",
                       "5 timing.network: fluid and timing.cohorts are two ways to scale: choose one",
                       "2 platform.hospitals[0].vary.speed_flops: uniform needs min and max",
                   }));
  }
}

TEST(CrossKeyRules, ATierRatioThatFitsBecomesTheHospitalGroups) {
  const Scenario s = load_scenario_text("platform: {tier_ratio: '2:0:1', hospital_count: 6}\n", "x.yaml");
  ASSERT_EQ(s.platform.hospitals.size(), 2u);
  EXPECT_EQ(s.platform.hospitals[0].tier, "weak");
  EXPECT_EQ(s.platform.hospitals[0].count, 4);
  EXPECT_EQ(s.platform.hospitals[1].tier, "strong");
  EXPECT_EQ(s.platform.hospitals[1].count, 2);
  EXPECT_EQ(s.platform.hospitals[1].line, 1);
}

}  // namespace
}  // namespace fedgrid

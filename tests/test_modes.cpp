// The scenario's modes (sim/core/modes.hpp): each key's allowed values are its mode's names, a
// scenario's value is read once into the enum, and the name round-trips.
#include <gtest/gtest.h>

#include "sim/core/input_error.hpp"
#include "sim/core/modes.hpp"
#include "sim/scenario/key_table.hpp"
#include "sim/scenario/scenario.hpp"

namespace fedgrid {
namespace {

template <class Mode>
void expect_key_is_mode(const std::string& key) {
  const KeyDecl* decl = find_key(key);
  ASSERT_NE(decl, nullptr) << key;
  EXPECT_EQ(decl->allowed, mode_names<Mode>()) << key;
  for (const std::string& name : mode_names<Mode>()) {
    const auto mode = mode_named<Mode>(name);
    ASSERT_TRUE(mode.has_value()) << name;
    EXPECT_EQ(mode_name(*mode), name);
  }
  EXPECT_FALSE(mode_named<Mode>("no-such-mode").has_value());
}

TEST(Modes, EachModeKeyAllowsItsModesNames) {
  expect_key_is_mode<NetworkModel>("timing.network");
  expect_key_is_mode<ComputeModel>("timing.compute");
  expect_key_is_mode<LrSchedule>("training.lr_schedule");
}

TEST(Modes, AScenarioIsReadOnceIntoTheEnums) {
  const std::string platform = "platform: {hospitals: [{tier: weak}]}\n";
  const Scenario defaults = load_scenario_text(platform, "x.yaml");
  EXPECT_EQ(defaults.timing.network, NetworkModel::Lv08);
  EXPECT_EQ(defaults.timing.compute, ComputeModel::Flops);
  EXPECT_EQ(defaults.training.lr_schedule, LrSchedule::Constant);
  const Scenario set = load_scenario_text(platform + "timing: {network: fluid}\ntraining: {lr_schedule: cosine}\n", "x.yaml");
  EXPECT_EQ(set.timing.network, NetworkModel::Fluid);
  EXPECT_EQ(set.training.lr_schedule, LrSchedule::Cosine);
  try {
    load_scenario_text(platform, "x.yaml", {"timing.network=ns3"});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.problems().at(0).key, "timing.network");
    EXPECT_EQ(e.problems().at(0).message, "'ns3' is not one of: default, cm02, fluid");
  }
}

}  // namespace
}  // namespace fedgrid

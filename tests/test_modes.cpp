// The scenario's modes (each declared with its section, sim/scenario/sections/; the training
// ones in sim/core/modes.hpp): each key's allowed values are its mode's names, a scenario's
// value is read once into the enum, and the name round-trips; training.fuse's setting (a mode
// with a count) too. The algorithms' own modes (KeySet::mode) refuse a value that is none of
// their names the same way.
#include <gtest/gtest.h>

#include "sim/core/input_error.hpp"
#include "sim/core/modes.hpp"
#include "sim/scenario/key_table.hpp"
#include "sim/scenario/scenario.hpp"
#include "tests/helpers.hpp"

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
  expect_key_is_mode<Optimizer>("training.optimizer");
  expect_key_is_mode<Precision>("training.precision");
  expect_key_is_mode<DeviceChoice>("training.device");
  expect_key_is_mode<data::PartitionScheme>("data.partition.scheme");
  for (const char* figure : {"speed_flops", "uplink_bps", "downlink_bps", "latency_s", "samples"})
    expect_key_is_mode<FigureDist>(std::string("platform.hospitals[].vary.") + figure + ".dist");
}

// training.fuse: off, auto or a count, each with one spelling that fuse_name gives back.
TEST(Modes, FuseReadsOffAutoOrACountAndNamesItBack) {
  for (const std::string text : {"off", "auto", "1", "16", "999999"}) {
    const auto fuse = fuse_named(text);
    ASSERT_TRUE(fuse.has_value()) << text;
    EXPECT_EQ(fuse_name(*fuse), text);
  }
  EXPECT_EQ(fuse_named("16"), (Fuse{FuseMode::Count, 16}));
  for (const std::string bad : {"", "0", "007", "1000000", "-4", "4x", "1.5", "on", "Auto"})
    EXPECT_FALSE(fuse_named(bad).has_value()) << bad;
}

TEST(Modes, AScenarioIsReadOnceIntoTheEnums) {
  const std::string platform = "platform: {hospitals: [{tier: weak}]}\n";
  const Scenario defaults = load_scenario_text(platform, "x.yaml");
  EXPECT_EQ(defaults.timing.network, NetworkModel::Lv08);
  EXPECT_EQ(defaults.timing.compute, ComputeModel::Flops);
  EXPECT_EQ(defaults.training.lr_schedule, LrSchedule::Constant);
  EXPECT_EQ(defaults.training.optimizer, Optimizer::Sgd);
  EXPECT_EQ(defaults.training.precision, Precision::Fp32);
  EXPECT_EQ(defaults.training.device, DeviceChoice::Auto);
  EXPECT_EQ(defaults.training.fuse, (Fuse{FuseMode::Off, 0}));
  EXPECT_EQ(defaults.data.partition_scheme, data::PartitionScheme::Iid);
  const Scenario set = load_scenario_text(
      platform + "timing: {network: fluid}\ntraining: {lr_schedule: cosine, optimizer: adam, precision: bf16, device: cpu, "
                 "fuse: 8}\ndata: {partition: {scheme: shards}}\n",
      "x.yaml");
  EXPECT_EQ(set.timing.network, NetworkModel::Fluid);
  EXPECT_EQ(set.training.lr_schedule, LrSchedule::Cosine);
  EXPECT_EQ(set.training.optimizer, Optimizer::Adam);
  EXPECT_EQ(set.training.precision, Precision::Bf16);
  EXPECT_EQ(set.training.device, DeviceChoice::Cpu);
  EXPECT_EQ(set.training.fuse, (Fuse{FuseMode::Count, 8}));
  EXPECT_EQ(set.data.partition_scheme, data::PartitionScheme::Shards);
  const Scenario drawn = load_scenario_text(
      "platform: {hospitals: [{tier: weak, count: 2, vary: {uplink_bps: {dist: uniform, min: 1e6, max: 2e6}}}]}\n",
      "x.yaml");
  EXPECT_EQ(drawn.platform.hospitals.at(0).vary.at("uplink_bps").dist, FigureDist::Uniform);
  EXPECT_EQ(load_scenario_text(platform, "x.yaml", {"timing.network=ns3"}).timing.network, NetworkModel::Ns3);
  try {
    load_scenario_text(platform, "x.yaml", {"timing.network=ns2"});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.problems().at(0).key, "timing.network");
    EXPECT_EQ(e.problems().at(0).message, "'ns2' is not one of: default, cm02, fluid, ns3");
  }
  try {
    load_scenario_text(platform, "x.yaml", {"training.precision=fp16"});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.problems().at(0).key, "training.precision");
    EXPECT_EQ(e.problems().at(0).message, "'fp16' is not one of: fp32, bf16");
  }
}

// The algorithms' own modes (fedseq.cpp, asynchronous.hpp, fedskd.cpp, unifed.cpp): declared
// with their names as the allowed values, and a wrong value is input: the key, the value and
// the names, at the value's file and line, exit 2.
TEST(Modes, AnAlgorithmsModeKeyRefusesAValueOfNoneOfItsNames) {
  struct Case {
    const char *algorithm, *key, *names;
  };
  for (const Case c : {Case{"fedseq", "order", "fixed, random"}, Case{"fedcross", "order", "fixed, random"},
                       Case{"fedasync", "staleness", "constant, polynomial, hinge"},
                       Case{"fedbuff", "staleness", "constant, polynomial, hinge"},
                       Case{"fedskd", "schedule", "barrier, pipelined"},
                       Case{"unifed", "variant", "paper, authors_code"}}) {
    const std::string key = std::string("algorithm.") + c.key;
    const KeyDecl* decl = find_key(key, c.algorithm);
    ASSERT_NE(decl, nullptr) << key;
    std::string allowed;
    for (const auto& name : decl->allowed) allowed += (allowed.empty() ? "" : ", ") + name;
    EXPECT_EQ(allowed, c.names) << key;

    const std::string dir = test::temp_dir("modes-algorithm");
    test::write_file(dir + "/s.yaml", std::string("platform: {hospitals: [{tier: weak, count: 2}]}\n") +
                                          "algorithm:\n  name: " + c.algorithm + "\n  " + c.key + ": Fixed\n");
    const auto r = test::run_fedgrid("validate " + dir + "/s.yaml");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(dir + "/s.yaml:4: key '" + key + "': 'Fixed' is not one of: " + c.names), std::string::npos)
        << r.output;
  }
}

}  // namespace
}  // namespace fedgrid

// Scenario loading and validation: every error names the file, the line and the key.
#include <gtest/gtest.h>

#include "sim/core/input_error.hpp"
#include "algorithms/registry.hpp"
#include "sim/engine/run.hpp"
#include "sim/scenario/key_table.hpp"
#include "sim/scenario/key_transfer.hpp"
#include "sim/scenario/scenario.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

InputProblem first_problem(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  try {
    Scenario s = load_scenario_text(yaml, "x.yaml", overrides);
    algorithms::check_algorithm(s);
    check_scenario(s);
  } catch (const InputError& e) {
    return e.problems().front();
  }
  ADD_FAILURE() << "no error for:\n" << yaml;
  return {};
}

TEST(Scenario, DefaultsComeFromTheKeyTable) {
  Scenario s = load_scenario_text("platform: {hospitals: [{tier: weak}]}", "x.yaml");
  EXPECT_EQ(s.seed, 42u);
  EXPECT_EQ(s.model.arch, "cnn");
  EXPECT_EQ(s.algorithm.name, "fedavg");
  EXPECT_EQ(s.stop.rounds, 20);
  EXPECT_DOUBLE_EQ(s.training.lr, 0.01);
  EXPECT_EQ(s.platform.server_tier, "cloud");
  EXPECT_EQ(s.platform.hospitals.at(0).count, 1);
  EXPECT_FALSE(s.stop.target_accuracy.has_value());
  EXPECT_EQ(s.output.dir, "results/scenario");
}

TEST(Scenario, BuiltInQuickstartMatchesTheIssue) {
  Scenario s = builtin_quickstart();
  EXPECT_EQ(s.name, "quickstart");
  ASSERT_EQ(s.platform.hospitals.size(), 3u);
  for (const auto& g : s.platform.hospitals) EXPECT_EQ(g.count, 3);
  EXPECT_EQ(s.data.dataset, "fashion-mnist");
  EXPECT_EQ(s.data.partition_scheme, data::PartitionScheme::Dirichlet);
  EXPECT_DOUBLE_EQ(s.data.beta, 0.5);
  EXPECT_EQ(s.model.arch, "cnn");
  EXPECT_EQ(s.stop.rounds, 5);  // 20 before issue 35: a first result within 12 minutes of a clone
  EXPECT_NO_THROW(check_scenario(s));
}

TEST(Scenario, OverridesReplaceValues) {
  Scenario s = builtin_quickstart({"training.lr=0.2", "platform.hospitals.1.count=5", "stop.target_accuracy=0.8"});
  EXPECT_DOUBLE_EQ(s.training.lr, 0.2);
  EXPECT_EQ(s.platform.hospitals[1].count, 5);
  EXPECT_DOUBLE_EQ(*s.stop.target_accuracy, 0.8);
}

TEST(Scenario, MalformedYamlNamesTheLine) {
  auto p = first_problem("name: a\nplatform: {hospitals: [\n  - x: [\n");
  EXPECT_EQ(p.file, "x.yaml");
  EXPECT_GT(p.line, 0);
  EXPECT_NE(p.message.find("malformed YAML"), std::string::npos);
}

TEST(Scenario, AKeyGivenTwiceIsReported) {
  auto p = first_problem("name: a\nstop: {rounds: 3}\nplatform: {hospitals: [{tier: weak}]}\nstop: {rounds: 9}\n");
  EXPECT_EQ(p.line, 4);
  EXPECT_EQ(p.key, "stop");
  EXPECT_NE(p.message.find("given twice"), std::string::npos) << p.message;
}

TEST(Scenario, UnknownKeySuggestsTheClosest) {
  auto p = first_problem("name: a\ntraining:\n  lrr: 0.1\n");
  EXPECT_EQ(p.line, 3);
  EXPECT_EQ(p.key, "training.lrr");
  EXPECT_NE(p.message.find("did you mean 'training.lr'"), std::string::npos) << p.message;
}

TEST(Scenario, WrongTypeIsReported) {
  auto p = first_problem("platform: {hospitals: [{tier: weak}]}\ntraining:\n  batch_size: many\n");
  EXPECT_EQ(p.line, 3);
  EXPECT_EQ(p.key, "training.batch_size");
  EXPECT_NE(p.message.find("expected integer"), std::string::npos) << p.message;
}

TEST(Scenario, NegativeCountIsReported) {
  auto p = first_problem("platform:\n  hospitals:\n    - {count: -3, tier: weak}\n");
  EXPECT_EQ(p.line, 3);
  EXPECT_EQ(p.key, "platform.hospitals[0].count");
  EXPECT_NE(p.message.find(">= 1"), std::string::npos) << p.message;
}

TEST(Scenario, MissingTierInAGroupIsReported) {
  auto p = first_problem("platform:\n  hospitals:\n    - {count: 3}\n");
  EXPECT_EQ(p.key, "platform.hospitals[0].tier");
  EXPECT_NE(p.message.find("required"), std::string::npos);
}

TEST(Scenario, UnknownTierIsReported) {
  auto p = first_problem("platform:\n  hospitals:\n    - {count: 3, tier: mighty}\n");
  EXPECT_EQ(p.line, 3);
  EXPECT_EQ(p.key, "platform.hospitals[0].tier");
  EXPECT_NE(p.message.find("unknown tier 'mighty'"), std::string::npos) << p.message;
}

TEST(Scenario, UnknownAlgorithmIsReported) {
  auto p = first_problem("platform: {hospitals: [{tier: weak}]}\nalgorithm:\n  name: fedmagic\n");
  EXPECT_EQ(p.line, 3);
  EXPECT_EQ(p.key, "algorithm.name");
  EXPECT_NE(p.message.find("fedavg"), std::string::npos) << p.message;
}

// An algorithm reads its own keys only: another's would be ignored, so it is refused, naming
// the algorithms that declare it, from the file and from --set alike.
TEST(Scenario, AnotherAlgorithmsKeyIsRefused) {
  auto p = first_problem("platform: {hospitals: [{tier: weak}]}\nalgorithm:\n  name: fedavg\n  mu: 0.1\n");
  EXPECT_EQ(p.line, 4);
  EXPECT_EQ(p.key, "algorithm.mu");
  EXPECT_EQ(p.message, "not a key of algorithm 'fedavg': only fedprox declares it");
  p = first_problem("platform: {hospitals: [{tier: weak}]}\n", {"algorithm.alpha=0.5"});  // fedavg by default
  EXPECT_EQ(p.file, "--set");
  EXPECT_EQ(p.message, "not a key of algorithm 'fedavg': only fedasync and unifed declare it");
  // The closest key of its own is suggested: fedasync's alpha for fedamp's alpha_k.
  p = first_problem("platform: {hospitals: [{tier: weak}]}\nalgorithm: {name: fedasync, alpha_k: 1}\n");
  EXPECT_EQ(p.key, "algorithm.alpha_k");
  EXPECT_EQ(p.message, "not a key of algorithm 'fedasync': only fedamp declares it (did you mean 'algorithm.alpha'?)");
  // --set algorithm.name decides whose keys the file may give.
  EXPECT_NO_THROW(load_scenario_text("platform: {hospitals: [{tier: weak}]}\nalgorithm: {name: fedavg, mu: 0.1}\n",
                                     "x.yaml", {"algorithm.name=fedprox"}));
  // Unset, another algorithm's key is ignored by none: how a scenario runs under another algorithm.
  EXPECT_NO_THROW(load_scenario_text("platform: {hospitals: [{tier: weak}]}\nalgorithm: {name: fedprox, mu: 0.1}\n",
                                     "x.yaml", {"algorithm.name=fedavg", "algorithm.mu=null"}));
  // A name no algorithm has: check_algorithm reports it, not its keys.
  p = first_problem("platform: {hospitals: [{tier: weak}]}\nalgorithm: {name: fedmagic, mu: 0.1}\n");
  EXPECT_EQ(p.key, "algorithm.name");
}

// fedasync and unifed each declare algorithm.alpha, with their own bounds and descriptions.
TEST(Scenario, OneKeyNameDeclaredDifferentlyByTwoAlgorithms) {
  const KeyDecl* fedasync = find_key("algorithm.alpha", "fedasync");
  const KeyDecl* unifed = find_key("algorithm.alpha", "unifed");
  ASSERT_TRUE(fedasync && unifed);
  EXPECT_NE(fedasync, unifed);
  EXPECT_EQ(fedasync->algorithms, std::vector<std::string>{"fedasync"});
  EXPECT_EQ(unifed->algorithms, std::vector<std::string>{"unifed"});
  EXPECT_EQ(fedasync->description.rfind("fedasync: ", 0), 0u) << fedasync->description;
  EXPECT_EQ(unifed->description.rfind("unifed: ", 0), 0u) << unifed->description;
  EXPECT_EQ(find_key("algorithm.alpha", "fedavg"), nullptr);
  EXPECT_EQ(algorithms_declaring("algorithm.alpha"), (std::vector<std::string>{"fedasync", "unifed"}));
  // One declaration several algorithms share alike is one entry naming them all.
  const KeyDecl* fraction = find_key("algorithm.fraction", "fedprox");
  ASSERT_TRUE(fraction);
  EXPECT_EQ(fraction, find_key("algorithm.fraction", "fedavg"));
  EXPECT_GE(fraction->algorithms.size(), 2u);

  const std::string base = "platform: {hospitals: [{tier: weak}]}\nalgorithm: {name: ";
  EXPECT_NO_THROW(load_scenario_text(base + "unifed, alpha: 0}\n", "x.yaml"));  // unifed's may be 0
  auto p = first_problem(base + "fedasync, alpha: 0}\n");                          // fedasync's may not
  EXPECT_EQ(p.key, "algorithm.alpha");
  EXPECT_EQ(p.message, "must be > 0, got 0");
  // The name --set gives (a sweep's axis, say) decides whose alpha the file's is checked against.
  EXPECT_NO_THROW(load_scenario_text(base + "fedasync, alpha: 0}\n", "x.yaml", {"algorithm.name=unifed"}));
}

// Declaring one of the simulator's keys, or a name twice differently, is a programming error.
TEST(Scenario, InstallKeysRefusesAClash) {
  const KeyDecl name{"algorithm.name", KeyType::String, std::nullopt, "test: clash"};
  EXPECT_THROW(install_keys("test-clash-core", {name}), std::logic_error);
  const KeyDecl one{"algorithm.test_declared_twice", KeyType::Int, "1", "test: one"};
  KeyDecl other = one;
  other.default_value = "2";
  EXPECT_THROW(install_keys("test-clash-twice", {one, other}), std::logic_error);
}

TEST(Scenario, EnumValuesAreChecked) {
  auto p = first_problem("platform: {hospitals: [{tier: weak}]}\ndata:\n  partition: {scheme: zipf}\n");
  EXPECT_EQ(p.key, "data.partition.scheme");
  EXPECT_NE(p.message.find("iid, dirichlet, shards"), std::string::npos);
}

// training.deterministic (what CUDA may compute) and training.fuse (how jobs are batched).
TEST(Scenario, DeterministicDefaultsTrueAndFuseOff) {
  const std::string yaml = "platform: {hospitals: [{tier: weak}]}\n";
  Scenario s = load_scenario_text(yaml, "x.yaml");
  EXPECT_TRUE(s.training.deterministic);
  EXPECT_EQ(s.training.fuse, (Fuse{FuseMode::Off, 0}));
  s = load_scenario_text(yaml + "training: {deterministic: false, fuse: auto}\n", "x.yaml");
  EXPECT_FALSE(s.training.deterministic);
  EXPECT_EQ(s.training.fuse, (Fuse{FuseMode::Auto, 0}));
  s = load_scenario_text(yaml, "x.yaml", {"training.fuse=16", "training.deterministic=true"});
  EXPECT_EQ(s.training.fuse, (Fuse{FuseMode::Count, 16}));
  EXPECT_TRUE(s.training.deterministic);
}

TEST(Scenario, DeterministicIsABoolean) {
  auto p = first_problem("platform: {hospitals: [{tier: weak}]}\ntraining:\n  deterministic: mostly\n");
  EXPECT_EQ(p.line, 3);
  EXPECT_EQ(p.key, "training.deterministic");
}

TEST(Scenario, FuseIsOffAutoOrAPositiveCount) {
  for (const std::string bad : {"0", "-4", "on", "4x", "1.5", "007"}) {
    auto p = first_problem("platform: {hospitals: [{tier: weak}]}\ntraining:\n  fuse: \"" + bad + "\"\n");
    EXPECT_EQ(p.line, 3) << bad;
    EXPECT_EQ(p.key, "training.fuse") << bad;
    EXPECT_NE(p.message.find("off, auto or a positive number"), std::string::npos) << p.message;
  }
  for (const std::string good : {"off", "auto", "1", "64"})
    EXPECT_NO_THROW(load_scenario_text("platform: {hospitals: [{tier: weak}]}\ntraining: {fuse: " + good + "}\n",
                                       "x.yaml")) << good;
}

TEST(Scenario, SplitMustSumToOne) {
  auto p = first_problem("platform: {hospitals: [{tier: weak}]}\ndata:\n  split: {train: 0.5, val: 0.1, test: 0.1}\n");
  EXPECT_EQ(p.key, "data.split");
  EXPECT_EQ(p.line, 3);
}

TEST(Scenario, NoHospitalsIsAnError) {
  auto p = first_problem("name: empty\n");
  EXPECT_EQ(p.key, "platform.hospitals");
}

TEST(Scenario, BadOverrideNamesTheFlag) {
  auto p = first_problem("platform: {hospitals: [{tier: weak}]}\n", {"training.epochz=3"});
  EXPECT_EQ(p.file, "--set");
  EXPECT_EQ(p.key, "training.epochz");
}

TEST(Scenario, EveryProblemIsListed) {
  try {
    load_scenario_text("platform: {hospitals: [{tier: weak}]}\nseeed: 1\ntraining: {lr: -1, momentum: x}\n", "x.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.problems().size(), 3u) << e.what();
  }
}

TEST(Scenario, MissingScenarioFile) {
  try {
    load_scenario("/nonexistent/s.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.problems()[0].file, "/nonexistent/s.yaml");
  }
}

// A list or mapping where a key's name belongs (YAML's "? [a, b]: value"): yaml-cpp threw a
// bad conversion out of the validator, which ended fedgrid (found by fuzz/fuzz_scenario.cpp;
// tests/inputs/scenario/key_is_a_list.yaml is the crashing input, reduced).
TEST(Scenario, AKeyThatIsAListOrMappingIsAnInputError) {
  const std::string file = std::string(test::source_dir()) + "/tests/inputs/scenario/key_is_a_list.yaml";
  auto r = test::run_fedgrid("validate " + file);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(file + ":5: key 'training': a key must be a name, not a list or mapping"), std::string::npos)
      << r.output;
  auto top = first_problem("? {a: 1}\n: 2\nplatform: {hospitals: [{tier: weak}]}\n");
  EXPECT_EQ(top.line, 1);
  EXPECT_NE(top.message.find("(in (top level))"), std::string::npos) << top.message;
  const std::string dir = test::temp_dir("list_keys");
  test::write_file(dir + "/sweep.yaml", "base: base.yaml\n? [axes]\n: 1\n");
  auto sweep = test::run_fedgrid("sweep " + dir + "/sweep.yaml");
  EXPECT_EQ(sweep.exit_code, 2) << sweep.output;
  EXPECT_NE(sweep.output.find("sweep.yaml:2:"), std::string::npos) << sweep.output;
  test::write_file(dir + "/tiers.yaml", "tiers:\n  ? [weak]\n  : {speed_flops: 1}\n");
  test::write_file(dir + "/s.yaml", test::tiny_scenario("tiers"));
  auto tiers = test::run_fedgrid("validate " + dir + "/s.yaml --set platform.tiers=" + dir + "/tiers.yaml");
  EXPECT_EQ(tiers.exit_code, 2) << tiers.output;
  EXPECT_NE(tiers.output.find("tiers.yaml:2: key 'tiers'"), std::string::npos) << tiers.output;
}

// An int key beyond an int (tests/inputs/scenario/int_beyond_int.yaml, found by fuzz_sweep) and
// an int list item beyond one: out of range, exit 2, in the file and on the command line.
TEST(Scenario, AnIntegerBeyondAnIntIsOutOfRange) {
  const std::string file = std::string(test::source_dir()) + "/tests/inputs/scenario/int_beyond_int.yaml";
  auto r = test::run_fedgrid("validate " + file);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(file + ":6: key 'stop.rounds': must be <= 2147483647, got 12222222222220"), std::string::npos)
      << r.output;
  auto set = test::run_fedgrid("validate " + file + " --set stop.rounds=3 --set platform.hospitals.0.count=-99999999999");
  EXPECT_EQ(set.exit_code, 2) << set.output;
  EXPECT_NE(set.output.find("key 'platform.hospitals[0].count': must be >= 1, got -99999999999"), std::string::npos) << set.output;
}

// A list index with more digits than any list has items: out of range, not std::out_of_range
// from stoul (which the command line reported as an internal error, exit 1).
TEST(Scenario, AHugeListIndexInAnOverrideIsOutOfRange) {
  auto p = first_problem("platform: {hospitals: [{tier: weak}]}\n", {"platform.hospitals.99999999999999999999.count=2"});
  EXPECT_EQ(p.file, "--set");
  EXPECT_EQ(p.key, "platform.hospitals.99999999999999999999.count");
  EXPECT_NE(p.message.find("list index 99999999999999999999 out of range"), std::string::npos) << p.message;
}

// List items as docs/reference/keys.md writes list keys: [i] as .i does, [] in every item; an
// index out of range names the list and its length; a malformed bracket is an input error.
TEST(Scenario, ListItemsAreSetAsTheKeyReferenceWritesThem) {
  const std::string two = "platform: {hospitals: [{tier: weak, count: 2}, {tier: strong, count: 3}]}\n";
  const Scenario bracket = load_scenario_text(two, "x.yaml", {"platform.hospitals[1].count=7"});
  const Scenario dotted = load_scenario_text(two, "x.yaml", {"platform.hospitals.1.count=7"});
  EXPECT_EQ(bracket.platform.hospitals.at(1).count, 7);
  EXPECT_EQ(dotted.platform.hospitals.at(1).count, 7);
  EXPECT_EQ(bracket.platform.hospitals.at(0).count, 2);
  const Scenario every = load_scenario_text(two, "x.yaml", {"platform.hospitals[].uplink_bps=5e6"});
  for (const auto& group : every.platform.hospitals) EXPECT_EQ(group.uplink_bps, 5e6);
  auto far = first_problem(two, {"platform.hospitals[2].count=5"});
  EXPECT_EQ(far.file, "--set");
  EXPECT_EQ(far.key, "platform.hospitals[2].count");
  EXPECT_NE(far.message.find("list index 2 out of range: list 'platform.hospitals' has 2 items"), std::string::npos)
      << far.message;
  auto open = first_problem(two, {"platform.hospitals[1.count=5"});
  EXPECT_NE(open.message.find("a list item is written [i]"), std::string::npos) << open.message;
  auto not_list = first_problem(two, {"training[0].lr=0.1"});
  EXPECT_NE(not_list.message.find("'training' is not a list"), std::string::npos) << not_list.message;
}

// A path the system refuses to look up (longer than a file name may be) is a missing file, exit
// 2 naming the key; std::filesystem::exists threw and fedgrid exited 1 with an internal error.
TEST(Scenario, APathTooLongToLookUpIsAMissingFile) {
  const std::string dir = test::temp_dir("long_path");
  const std::string path = std::string(5000, 'a');
  const std::pair<std::string, std::string> cases[] = {
      {"platform: {roster: " + path + "}", "key 'platform.roster': roster file not found"},
      {"platform: {tiers: " + path + ", hospitals: [{tier: weak}]}", "key 'platform.tiers': tier catalog not found"},
      {"platform: {xml: " + path + "}", "key 'platform.xml': platform file not found"},
      {"platform: {hospitals: [{tier: weak}]}\ntraining: {mode: timing-only, surrogate: " + path + "}",
       "key 'training.surrogate': surrogate curve not found"},
      {"platform: {hospitals: [{tier: weak}]}\ndata: {dataset: npz:" + path + "}", path}};
  for (const auto& [yaml, expected] : cases) {
    test::write_file(dir + "/s.yaml", "name: long\n" + yaml + "\n");
    auto r = test::run_fedgrid("validate " + dir + "/s.yaml");
    EXPECT_EQ(r.exit_code, 2) << yaml.substr(0, 40) << "\n" << r.output.substr(0, 300);
    EXPECT_NE(r.output.find(expected), std::string::npos) << r.output.substr(0, 300);
  }
}

TEST(Scenario, RosterAndXmlPathsResolve) {
  Scenario s = load_scenario_text("platform: {roster: platforms/example_roster.csv}\n", "x.yaml");
  EXPECT_TRUE(std::filesystem::exists(s.platform.roster)) << s.platform.roster;
  EXPECT_NO_THROW(check_scenario(s));
}

TEST(Scenario, RosterErrorsNameLineAndColumn) {
  const std::string dir = test::temp_dir("roster");
  test::write_file(dir + "/r.csv", "name,tier,uplink_bps\nA,weak,\nB,strong,fast\n");
  try {
    check_scenario(load_scenario_text("platform: {roster: " + dir + "/r.csv}\n", "x.yaml"));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.problems()[0].line, 3);
    EXPECT_EQ(e.problems()[0].key, "uplink_bps");
  }
  test::write_file(dir + "/r.csv", "name,tier\nA,weak\nB,giant\n");
  try {
    check_scenario(load_scenario_text("platform: {roster: " + dir + "/r.csv}\n", "x.yaml"));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.problems()[0].line, 3);
    EXPECT_NE(e.problems()[0].message.find("giant"), std::string::npos);
  }
}

}  // namespace
}  // namespace fedgrid

namespace fedgrid {
namespace {

// The key reference (docs/reference/keys.md) is `fedgrid list keys`, the table every
// declaration makes (test::expect_reference_is_listed).
TEST(Scenario, KeyReferenceIsTheDeclaredTable) { test::expect_reference_is_listed("keys"); }

// Key declarations survive the trip through YAML (the fuzz harnesses' fuzz/algorithm_keys.yaml).
TEST(Scenario, KeyDeclarationsRoundTripThroughYaml) {
  const auto& all = scenario_keys();
  const auto back = keys_from_yaml(keys_to_yaml(all));
  ASSERT_EQ(back.size(), all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(back[i].path, all[i].path);
    EXPECT_EQ(back[i].type, all[i].type);
    EXPECT_EQ(back[i].default_value, all[i].default_value) << all[i].path;
    EXPECT_EQ(back[i].allowed, all[i].allowed);
    EXPECT_EQ(back[i].min, all[i].min);
    EXPECT_EQ(back[i].max, all[i].max);
    EXPECT_EQ(back[i].min_exclusive, all[i].min_exclusive);
    EXPECT_EQ(back[i].max_exclusive, all[i].max_exclusive);
    EXPECT_EQ(back[i].required, all[i].required);
    EXPECT_EQ(back[i].description, all[i].description);
  }
}

}  // namespace
}  // namespace fedgrid

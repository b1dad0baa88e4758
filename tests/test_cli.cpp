// The command line's contract: exit codes 0/1/2, and bad input named by file, line and key.
#include <gtest/gtest.h>

#include "sim/jobs/compute.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

using test::run_fedgrid;

// Writes `yaml`, validates and runs it; both must fail with code 2 and every `expected` text.
void expect_bad_input(const std::string& tag, const std::string& yaml, const std::vector<std::string>& expected) {
  const std::string dir = test::temp_dir(tag);
  const std::string file = dir + "/bad.yaml";
  test::write_file(file, yaml);
  for (const std::string cmd : {"validate ", "run "}) {
    auto r = run_fedgrid(cmd + file + " --out " + dir + "/out");
    EXPECT_EQ(r.exit_code, 2) << cmd << r.output;
    EXPECT_NE(r.output.find(file), std::string::npos) << r.output;
    for (const auto& e : expected) EXPECT_NE(r.output.find(e), std::string::npos) << "missing '" << e << "' in\n" << r.output;
    EXPECT_EQ(r.output.find("internal error"), std::string::npos) << r.output;
  }
}

TEST(Cli, MalformedYaml) { expect_bad_input("malformed", "name: x\nplatform: [\n", {"bad.yaml:", "malformed YAML"}); }

TEST(Cli, UnknownKey) {
  expect_bad_input("unknown", test::tiny_scenario("u", "stopp: {rounds: 2}\n"),
                   {"bad.yaml:15:", "key 'stopp'", "did you mean 'stop'"});
}

TEST(Cli, WrongType) {
  expect_bad_input("type", test::tiny_scenario("t", "output: {eval_every: often}\n"),
                   {"bad.yaml:15:", "key 'output.eval_every'", "expected integer"});
}

TEST(Cli, NegativeCount) {
  expect_bad_input("negative", "platform:\n  hospitals:\n    - {count: -2, tier: weak}\n",
                   {"bad.yaml:3:", "key 'platform.hospitals[0].count'"});
}

TEST(Cli, MissingDatasetFile) {
  expect_bad_input("dataset", test::tiny_scenario("d", "").replace(test::tiny_scenario("d", "").find("synthetic"), 9,
                                                                     "idx:/nonexistent/fmnist"),
                   {"bad.yaml:9:", "key 'data.dataset'", "/nonexistent/fmnist"});
}

TEST(Cli, UnknownAlgorithm) {
  expect_bad_input("algorithm", test::tiny_scenario("a", "algorithm: {name: fedmagic}\n"),
                   {"bad.yaml:15:", "key 'algorithm.name'", "unknown algorithm 'fedmagic'"});
}

TEST(Cli, UnknownTier) {
  expect_bad_input("tier", "platform:\n  hospitals:\n    - {count: 2, tier: huge}\n",
                   {"bad.yaml:3:", "key 'platform.hospitals[0].tier'", "unknown tier 'huge'"});
}

TEST(Cli, CudaWithoutAGpuIsAnInputError) {
  if (cuda_available()) GTEST_SKIP() << "this LibTorch sees a GPU";
  std::string yaml = test::tiny_scenario("cuda");
  yaml.replace(yaml.find("training: {"), 11, "training: {device: cuda, ");
  expect_bad_input("cuda", yaml, {"bad.yaml:", "key 'training.device'", "no CUDA device"});
  // auto falls back to the CPU.
  yaml.replace(yaml.find("device: cuda"), 12, "device: auto");
  const std::string dir = test::temp_dir("auto-device");
  test::write_file(dir + "/s.yaml", yaml);
  auto r = run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/out --set stop.rounds=1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST(Cli, ModelTooBigForTheImages) {
  expect_bad_input("model", test::tiny_scenario("m", "").replace(test::tiny_scenario("m", "").find("arch: mlp"), 9, "arch: cnn"),
                   {"key 'model.arch'", "too small"});
}

TEST(Cli, BadCommandLine) {
  EXPECT_EQ(run_fedgrid("").exit_code, 2);
  EXPECT_EQ(run_fedgrid("fly").exit_code, 2);
  EXPECT_EQ(run_fedgrid("run --bogus").exit_code, 2);
  EXPECT_EQ(run_fedgrid("validate").exit_code, 2);
  EXPECT_EQ(run_fedgrid("run --set nonsense").exit_code, 2);
  EXPECT_EQ(run_fedgrid("run --log-level loud").exit_code, 2);
  auto r = run_fedgrid("run /nonexistent.yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("/nonexistent.yaml"), std::string::npos);
}

TEST(Cli, ListAndValidate) {
  for (const char* what : {"algorithms", "models", "datasets", "tiers", "keys"}) {
    auto r = run_fedgrid(std::string("list ") + what);
    EXPECT_EQ(r.exit_code, 0) << what << r.output;
    EXPECT_FALSE(r.output.empty());
  }
  EXPECT_NE(run_fedgrid("list algorithms").output.find("fedseq"), std::string::npos);
  EXPECT_NE(run_fedgrid("list tiers").output.find("strong"), std::string::npos);
  auto v = run_fedgrid(std::string("validate ") + FEDGRID_SOURCE_DIR + "/scenarios/quickstart.yaml");
  EXPECT_EQ(v.exit_code, 0) << v.output;
}

// `fedgrid compare` lays finished runs side by side; a directory without a summary is bad input.
TEST(Cli, CompareShowsRunsSideBySide) {
  const auto fedavg = test::run_ok("cmp-a", test::tiny_scenario("cmp"));
  const auto fedseq = test::run_ok("cmp-b", test::tiny_scenario("cmp"), "--set algorithm.name=fedseq");
  auto r = run_fedgrid("compare " + fedavg + " " + fedseq);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const auto rows = test::lines(r.output);
  ASSERT_GE(rows.size(), 19u);
  EXPECT_NE(rows[0].find(fedavg), std::string::npos);
  EXPECT_NE(rows[0].find(fedseq), std::string::npos);
  EXPECT_NE(rows[2].find("fedavg"), std::string::npos);
  EXPECT_NE(rows[2].find("fedseq"), std::string::npos);
  EXPECT_NE(r.output.find("hospital -> server"), std::string::npos);
  const std::string empty = test::temp_dir("cmp-empty");
  r = run_fedgrid("compare " + fedavg + " " + empty);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(empty + "/summary.json"), std::string::npos) << r.output;
  EXPECT_EQ(run_fedgrid("compare").exit_code, 2);
}

}  // namespace
}  // namespace fedgrid

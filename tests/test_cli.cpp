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

// Exit code 2, and `named` (the offending option) in the message, followed by the usage.
void expect_usage_error(const std::string& args, const std::string& named) {
  auto r = run_fedgrid(args);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
  EXPECT_EQ(r.output.rfind("fedgrid: ", 0), 0u) << args << "\n" << r.output;
  EXPECT_NE(r.output.find(named), std::string::npos) << "missing " << named << " in\n" << r.output;
  EXPECT_NE(r.output.find("usage: fedgrid"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("internal error"), std::string::npos) << r.output;
}

TEST(Cli, CommandHelpListsItsOptions) {
  auto run = run_fedgrid("run --help");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  for (const char* option : {"usage: fedgrid run", "--set", "--out", "--log-level"})
    EXPECT_NE(run.output.find(option), std::string::npos) << option << " in\n" << run.output;
  EXPECT_EQ(run.output.find("--jobs"), std::string::npos) << run.output;
  auto sweep = run_fedgrid("sweep --help");
  EXPECT_EQ(sweep.exit_code, 0) << sweep.output;
  for (const char* option : {"usage: fedgrid sweep", "--set", "--jobs", "--out", "--retry-failed", "--log-level"})
    EXPECT_NE(sweep.output.find(option), std::string::npos) << option << " in\n" << sweep.output;
  auto compare = run_fedgrid("compare --help");
  EXPECT_EQ(compare.output.find("--set"), std::string::npos) << compare.output;
  // The overall usage: exit 0 when asked for, 2 without a command.
  auto all = run_fedgrid("--help");
  EXPECT_EQ(all.exit_code, 0);
  EXPECT_NE(all.output.find("fedgrid COMMAND --help"), std::string::npos) << all.output;
  auto none = run_fedgrid("");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.output.find("fedgrid COMMAND --help"), std::string::npos) << none.output;
  auto version = run_fedgrid("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.output.rfind("fedgrid ", 0), 0u) << version.output;
}

// Every usage text fits a 100-column terminal: the overall one and each command's.
TEST(Cli, EveryHelpFitsOneHundredColumns) {
  for (const std::string command :
       {"", "run ", "validate ", "platform ", "resume ", "list ", "compare ", "sweep ", "calibrate "}) {
    const auto r = run_fedgrid(command + "--help");
    EXPECT_EQ(r.exit_code, 0) << command << r.output;
    for (const auto& line : test::lines(r.output)) EXPECT_LE(line.size(), 100u) << command << "--help: " << line;
  }
}

TEST(Cli, BadOptionsAreNamed) {
  expect_usage_error("run --frobnicate", "unknown option '--frobnicate' for 'run'");
  expect_usage_error("sweep s.yaml --jobs x", "invalid value 'x' for option '--jobs'");
  expect_usage_error("sweep s.yaml --jobs 0", "invalid value '0' for option '--jobs'");
  expect_usage_error("sweep s.yaml --jobs", "option '--jobs' of 'sweep' needs a value");
  // An option of another command.
  expect_usage_error("list --jobs 2", "unknown option '--jobs' for 'list'");
  expect_usage_error("run --jobs 2", "unknown option '--jobs' for 'run'");
  expect_usage_error("compare r --set a=1", "unknown option '--set' for 'compare'");
  expect_usage_error("run --retry-failed", "unknown option '--retry-failed' for 'run' (an option of 'sweep')");
  // --set without a value: at the end, or followed by another option.
  expect_usage_error("run --set", "option '--set' of 'run' needs a value");
  expect_usage_error("validate s.yaml --set --out x", "option '--set' of 'validate' needs a value");
  expect_usage_error("run --log-level loud", "invalid value 'loud' for option '--log-level'");
  expect_usage_error("run --out a --out b", "option '--out' of 'run' given more than once");
  // Too many or too few arguments.
  expect_usage_error("run a.yaml b.yaml", "'run' takes at most one SCENARIO, got 2");
  expect_usage_error("list", "'list' takes one of algorithms|models|datasets|tiers|keys|metrics, got 0");
  expect_usage_error("sweep", "'sweep' takes one SWEEP.yaml, got 0");
}

// --set as a separate argument and as --set=k=v, repeated, and global options before the command.
TEST(Cli, SetFormsAndGlobalOptionsAnywhere) {
  const std::string dir = test::temp_dir("setforms");
  test::write_file(dir + "/s.yaml", test::tiny_scenario("forms"));
  auto r = run_fedgrid("--log-level warn validate " + dir + "/s.yaml --set=stop.rounds=1 --set model.arch=mlp " +
                       "--set=output.eval_every=oftn");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("key 'output.eval_every'"), std::string::npos) << r.output;
  r = run_fedgrid("validate " + dir + "/s.yaml --set=stop.rounds=1 --set model.arch=mlp --log-level=warn");
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST(Cli, ListAndValidate) {
  for (const char* what : {"algorithms", "models", "datasets", "tiers", "keys", "metrics"}) {
    auto r = run_fedgrid(std::string("list ") + what);
    EXPECT_EQ(r.exit_code, 0) << what << r.output;
    EXPECT_FALSE(r.output.empty());
  }
  EXPECT_NE(run_fedgrid("list algorithms").output.find("fedseq"), std::string::npos);
  EXPECT_NE(run_fedgrid("list tiers").output.find("strong"), std::string::npos);
  auto v = run_fedgrid(std::string("validate ") + test::source_dir() + "/scenarios/quickstart.yaml");
  EXPECT_EQ(v.exit_code, 0) << v.output;
}

// Several scenarios in one call: each is validated on its own (a bad one does not stop the
// next), in the order given, and the exit code is the worst.
TEST(Cli, ValidateTakesSeveralScenarios) {
  const std::string dir = test::temp_dir("validate-several");
  test::write_file(dir + "/a.yaml", test::tiny_scenario("a"));
  test::write_file(dir + "/bad.yaml", test::tiny_scenario("bad") + "stopp: {rounds: 2}\n");
  test::write_file(dir + "/c.yaml", test::tiny_scenario("c"));
  auto r = run_fedgrid("validate " + dir + "/a.yaml " + dir + "/bad.yaml " + dir + "/c.yaml");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  const auto a = r.output.find(dir + "/a.yaml: ok"), bad = r.output.find(dir + "/bad.yaml:"),
             c = r.output.find(dir + "/c.yaml: ok");
  ASSERT_NE(a, std::string::npos) << r.output;
  ASSERT_NE(bad, std::string::npos) << r.output;
  ASSERT_NE(c, std::string::npos) << r.output;
  EXPECT_LT(a, bad);
  EXPECT_LT(bad, c);
  EXPECT_NE(r.output.find("bad.yaml:15: key 'stopp'"), std::string::npos) << r.output;
  r = run_fedgrid("validate " + dir + "/a.yaml " + dir + "/c.yaml");
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// A run into the folder of an earlier run is refused (exit 2, naming the folder and its files)
// and leaves those files as they were; --overwrite replaces them, and removes an earlier run's
// checkpoint that the new run does not write, but never a file that is not a run's.
TEST(Cli, RunNeverReplacesAnEarlierRunSilently) {
  const std::string out = test::run_ok("overwrite", test::tiny_scenario("ow"), "--set stop.rounds=1");
  const std::string dir = out.substr(0, out.rfind('/'));
  const std::string rounds = test::read_file(out + "/rounds.csv");
  test::write_file(out + "/checkpoint.bin", "an earlier run's");
  test::write_file(out + "/notes.txt", "the user's");
  auto again = run_fedgrid("run " + dir + "/s.yaml --out " + out + " --set stop.rounds=2");
  EXPECT_EQ(again.exit_code, 2) << again.output;
  EXPECT_NE(again.output.find(out + ": key 'output.dir': holds the outputs of an earlier run (rounds.csv, "
                                    "hospitals.csv, events.csv, summary.json"),
            std::string::npos)
      << again.output;
  EXPECT_NE(again.output.find("checkpoint.bin): choose another folder (--out DIR), or pass --overwrite"),
            std::string::npos)
      << again.output;
  EXPECT_EQ(test::read_file(out + "/rounds.csv"), rounds);
  // validate writes nothing, so it does not mind the folder.
  EXPECT_EQ(run_fedgrid("validate " + dir + "/s.yaml --out " + out).exit_code, 0);
  auto replaced = run_fedgrid("run " + dir + "/s.yaml --out " + out + " --overwrite --set stop.rounds=2");
  EXPECT_EQ(replaced.exit_code, 0) << replaced.output;
  EXPECT_EQ(test::lines(test::read_file(out + "/rounds.csv")).size(), test::lines(rounds).size() + 1);
  EXPECT_FALSE(std::filesystem::exists(out + "/checkpoint.bin"));
  EXPECT_EQ(test::read_file(out + "/notes.txt"), "the user's");
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

// The same scenario gives the same bytes on every machine (issue "trust the clock"): whatever
// training.workers is and however many cores the process may use. What does change the
// arithmetic (torch's intra-op threads per job) is the scenario's own key, recorded in
// summary.json.
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "helpers.hpp"
#include "sim/jobs/compute.hpp"

namespace fedgrid {
namespace {

using test::read_file;
using test::run_fedgrid;

const char* kDeterministicFiles[] = {"rounds.csv", "hospitals.csv", "events.csv", "summary.json"};

// The tiny scenario with convolutions: conv backward's reductions are where a thread count shows.
std::string run_in(const std::string& tag, const std::string& sets, const std::string& launcher = "") {
  const std::string dir = test::temp_dir(tag);
  std::string yaml = test::tiny_scenario("reproducible");
  yaml.replace(yaml.find("model: {arch: mlp}"), 18, "model: {arch: cnn}");
  yaml.replace(yaml.find("height: 12, width: 12"), 21, "height: 16, width: 16");
  test::write_file(dir + "/s.yaml", yaml);
  const auto r = run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/out --set stop.rounds=2 " + sets, launcher);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return dir + "/out";
}

void expect_same_bytes(const std::string& a, const std::string& b) {
  for (const char* f : kDeterministicFiles) EXPECT_EQ(read_file(a + "/" + f), read_file(b + "/" + f)) << f;
}

// taskset needs util-linux and a second CPU to mean anything.
bool can_pin_to_one_core() {
  return std::system("taskset -c 0 true >/dev/null 2>&1") == 0 && std::system("taskset -c 1 true >/dev/null 2>&1") == 0;
}

TEST(Reproducible, AnyWorkerCountGivesTheSameBytes) {
  const auto by_default = run_in("workers-default", "");
  expect_same_bytes(by_default, run_in("workers-1", "--set training.workers=1"));
  expect_same_bytes(by_default, run_in("workers-2", "--set training.workers=2"));
  expect_same_bytes(by_default, run_in("workers-3", "--set training.workers=3"));
}

TEST(Reproducible, OneCoreAndTwoCoresGiveTheSameBytes) {
  if (!can_pin_to_one_core()) GTEST_SKIP() << "needs taskset and two CPUs";
  expect_same_bytes(run_in("cores-2", ""), run_in("cores-1", "", "taskset -c 0"));
}

TEST(Reproducible, AnExplicitThreadCountIsReproducibleOnOneCoreToo) {
  if (!can_pin_to_one_core()) GTEST_SKIP() << "needs taskset and two CPUs";
  const std::string two = "--set training.threads_per_worker=2 --set training.workers=1";
  expect_same_bytes(run_in("threads2-cores-2", two), run_in("threads2-cores-1", two, "taskset -c 0"));
}

TEST(Reproducible, SummaryRecordsWhatFixesTheArithmetic) {
  const auto one = nlohmann::json::parse(read_file(run_in("arith-1", "--set training.device=cpu") + "/summary.json"));
  EXPECT_EQ(one["arithmetic"], nlohmann::json::parse(R"({"device": "cpu", "threads_per_worker": 1, "precision": "fp32",
                                                          "deterministic": true, "fuse": "off"})"));
  const auto two = nlohmann::json::parse(
      read_file(run_in("arith-2", "--set training.threads_per_worker=2 --set training.device=cpu") + "/summary.json"));
  EXPECT_EQ(two["arithmetic"]["threads_per_worker"], 2);
}

// training.deterministic restricts CUDA's kernels; the CPU's are deterministic already, so on
// the CPU false changes nothing but the record. training.fuse is recorded as set (auto fuses
// nothing on a CPU).
TEST(Reproducible, DeterministicAndFuseAreRecordedAndTheCpuIgnoresDeterministic) {
  const std::string cpu = "--set training.device=cpu";
  const auto strict = run_in("deterministic-true", cpu);
  const auto loose = run_in("deterministic-false", cpu + " --set training.deterministic=false --set training.fuse=auto");
  for (const char* f : {"rounds.csv", "hospitals.csv", "events.csv"})
    EXPECT_EQ(read_file(strict + "/" + f), read_file(loose + "/" + f)) << f;
  auto a = nlohmann::json::parse(read_file(strict + "/summary.json"));
  auto b = nlohmann::json::parse(read_file(loose + "/summary.json"));
  EXPECT_EQ(a["arithmetic"]["deterministic"], true);
  EXPECT_EQ(b["arithmetic"]["deterministic"], false);
  EXPECT_EQ(a["arithmetic"]["fuse"], "off");
  EXPECT_EQ(b["arithmetic"]["fuse"], "auto");
  a.erase("arithmetic"), b.erase("arithmetic");
  EXPECT_EQ(a, b);
}

TEST(Reproducible, BadDeterministicOrFuseSettingsExitTwoNamingTheKey) {
  const std::string dir = test::temp_dir("bad-fuse");
  test::write_file(dir + "/s.yaml", test::tiny_scenario("bad-fuse"));
  for (const std::string set : {"training.fuse=0", "training.fuse=sometimes", "training.deterministic=maybe"}) {
    const auto r = run_fedgrid("validate " + dir + "/s.yaml --set " + set);
    EXPECT_EQ(r.exit_code, 2) << set << "\n" << r.output;
    EXPECT_NE(r.output.find(set.substr(0, set.find('='))), std::string::npos) << r.output;
  }
}

// training.precision: bf16 trains under autocast: its own arithmetic (recorded), reproducible
// like fp32's. Where the CPU lacks AVX-512 BF16 it is refused instead.
TEST(Reproducible, Bf16IsItsOwnReproducibleArithmetic) {
  if (!cpu_has_bf16()) {
    const std::string dir = test::temp_dir("bf16-refused");
    test::write_file(dir + "/s.yaml", test::tiny_scenario("bf16"));
    const auto r = run_fedgrid("validate " + dir + "/s.yaml --set training.precision=bf16");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("training.precision"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("AVX-512 BF16"), std::string::npos) << r.output;
    return;
  }
  const std::string bf16 = "--set training.precision=bf16 --set training.device=cpu";
  const auto once = run_in("bf16-1", bf16);
  expect_same_bytes(once, run_in("bf16-2", bf16 + " --set training.workers=1"));
  EXPECT_EQ(nlohmann::json::parse(read_file(once + "/summary.json"))["arithmetic"]["precision"], "bf16");
  // The losses move: autocast really ran the convolutions in bfloat16.
  EXPECT_NE(read_file(once + "/rounds.csv"), read_file(run_in("bf16-fp32", "--set training.device=cpu") + "/rounds.csv"));
}

TEST(Reproducible, PrecisionIsFp32OrBf16) {
  const std::string dir = test::temp_dir("fp16");
  test::write_file(dir + "/s.yaml", test::tiny_scenario("fp16"));
  const auto r = run_fedgrid("validate " + dir + "/s.yaml --set training.precision=fp16");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("training.precision"), std::string::npos) << r.output;
}

TEST(Reproducible, TimingOnlyRunsHaveNoArithmetic) {
  const auto out = run_in("arith-timing", "--set training.mode=timing-only --set data.samples_per_hospital=50");
  EXPECT_TRUE(nlohmann::json::parse(read_file(out + "/summary.json"))["arithmetic"].is_null());
}

TEST(Reproducible, ThreadsPerWorkerIsAtLeastOne) {
  const std::string dir = test::temp_dir("threads0");
  test::write_file(dir + "/s.yaml", test::tiny_scenario("threads0"));
  const auto r = run_fedgrid("validate " + dir + "/s.yaml --set training.threads_per_worker=0");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("training.threads_per_worker"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace fedgrid

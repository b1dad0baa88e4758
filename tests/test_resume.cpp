// Runs that survive being killed (issue "when things go wrong"): a run with
// output.checkpoint_every, killed at any instant and continued with `fedgrid resume`, ends with
// the bytes of the run that was never interrupted.
#include <cstdlib>
#include <filesystem>

#include "helpers.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

using test::read_file;
using test::run_fedgrid;

const char* kOutputs[] = {"rounds.csv", "hospitals.csv", "events.csv", "summary.json", "trace.json"};

// The tiny scenario with convolutions and a learning rate at which accuracy still moves, 6
// rounds, a checkpoint every 2.
std::string scenario(const std::string& extra = "") {
  std::string yaml = test::tiny_scenario("resume", "output: {checkpoint_every: 2}\n" + extra);
  yaml.replace(yaml.find("model: {arch: mlp}"), 18, "model: {arch: cnn}");
  yaml.replace(yaml.find("height: 12, width: 12"), 21, "height: 16, width: 16");
  yaml.replace(yaml.find("stop: {rounds: 3}"), 17, "stop: {rounds: 6}");
  yaml.replace(yaml.find("lr: 0.05"), 8, "lr: 0.01");
  return yaml;
}

struct Runs {
  std::string dir;
  std::string uninterrupted() const { return dir + "/whole"; }
};

// The scenario (with `sets`) run once without interruption.
Runs whole_run(const std::string& tag, const std::string& sets, const std::string& extra = "") {
  Runs r{test::temp_dir(tag)};
  test::write_file(r.dir + "/s.yaml", scenario(extra));
  const auto run = run_fedgrid("run " + r.dir + "/s.yaml --out " + r.uninterrupted() + " --log-level warn " + sets);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  return r;
}

// The same run killed by `kill` (an environment setting or a launcher), then resumed; its
// outputs must be the uninterrupted run's.
void expect_resumes(const Runs& r, const std::string& name, const std::string& sets, const std::string& env,
                    const std::string& launcher = "") {
  const std::string out = r.dir + "/" + name;
  const auto killed =
      run_fedgrid("run " + r.dir + "/s.yaml --out " + out + " --log-level warn " + sets, env + " " + launcher);
  EXPECT_NE(killed.exit_code, 0) << name << ": the run was not killed\n" << killed.output;
  const auto resumed = run_fedgrid("resume " + out + " --log-level warn");
  ASSERT_EQ(resumed.exit_code, 0) << name << "\n" << resumed.output;
  for (const char* f : kOutputs)
    EXPECT_EQ(read_file(r.uninterrupted() + "/" + f), read_file(out + "/" + f)) << name << ": " << f;
}

TEST(Resume, KilledAtEachPointGivesTheUninterruptedBytes) {
  const Runs r = whole_run("resume-points", "");
  // Before the first checkpoint (round 1 written, none saved): resume starts again.
  expect_resumes(r, "before-first", "", "FEDGRID_CRASH_AT=round-reported:1");
  // Just after a checkpoint, and between two (round 3's rows written after round 2's checkpoint).
  expect_resumes(r, "after-write", "", "FEDGRID_CRASH_AT=checkpoint-written:1");
  expect_resumes(r, "between", "", "FEDGRID_CRASH_AT=round-reported:3");
  // During a write: the second checkpoint is on disk as checkpoint.bin.tmp, the first still whole.
  expect_resumes(r, "during-write", "", "FEDGRID_CRASH_AT=checkpoint-renaming:2");
  // After the last round's rows, before summary.json.
  expect_resumes(r, "before-summary", "", "FEDGRID_CRASH_AT=round-reported:6");
}

TEST(Resume, KilledFromOutsideAtArbitraryInstants) {
  const Runs r = whole_run("resume-sigkill", "");
  // kill -9 at 0, 0.7, 1.4 and 2.1 s after run.json appeared (the run has begun): wherever the
  // run is then (one that finished first is still resumed: from its last checkpoint, to the
  // same bytes). Before run.json exists nothing of the run is on disk to resume.
  for (const char* after : {"0", "0.7", "1.4", "2.1"}) {
    const std::string out = r.dir + "/kill-" + std::string(after);
    const std::string script = std::string(test::fedgrid_binary()) + " run " + r.dir + "/s.yaml --out " + out +
                               " --log-level warn >/dev/null 2>&1 & pid=$!; until [ -f " + out +
                               "/run.json ] || ! kill -0 $pid 2>/dev/null; do sleep 0.02; done; sleep " + after +
                               "; kill -9 $pid 2>/dev/null; wait $pid";
    std::system(("bash -c '" + script + "'").c_str());
    const auto resumed = run_fedgrid("resume " + out + " --log-level warn");
    ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
    for (const char* f : kOutputs)
      EXPECT_EQ(read_file(r.uninterrupted() + "/" + f), read_file(out + "/" + f)) << "killed after " << after << " s: " << f;
  }
}

// Each algorithm's kept state (server moments, rankings, per-hospital models, growth memory)
// comes back whole: killed between checkpoints, resumed to the same bytes.
TEST(Resume, EveryFamilyOfAlgorithmResumes) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"fedadam", "--set algorithm.name=fedadam"},
      {"fedcross", "--set algorithm.name=fedcross"},
      {"unifed", "--set algorithm.name=unifed --set data.server_share=0.1 --set algorithm.max_epochs=3"},
      {"fedskd", "--set algorithm.name=fedskd"},
      {"fedskd_persistent_adam",
       "--set algorithm.name=fedskd --set training.optimizer=adam --set training.lr=0.001 --set algorithm.persistent_adam=true"},
      {"dynamicfl", "--set algorithm.name=dynamicfl"},
      {"feddf", "--set algorithm.name=feddf --set data.server_share=0.1"},
  };
  for (const auto& [name, sets] : cases) {
    const Runs r = whole_run("resume-" + name, sets);
    expect_resumes(r, "killed", sets, "FEDGRID_CRASH_AT=round-reported:3");
  }
}

TEST(Resume, CheckpointsChangeNoOutput) {
  const Runs with = whole_run("resume-same", "");
  const std::string dir = test::temp_dir("resume-none");
  std::string yaml = scenario();
  yaml.replace(yaml.find("output: {checkpoint_every: 2}"), 29, "");
  test::write_file(dir + "/s.yaml", yaml);
  ASSERT_EQ(run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/out --log-level warn").exit_code, 0);
  for (const char* f : kOutputs) EXPECT_EQ(read_file(with.uninterrupted() + "/" + f), read_file(dir + "/out/" + f)) << f;
  EXPECT_TRUE(std::filesystem::exists(with.uninterrupted() + "/checkpoint.bin"));
  EXPECT_FALSE(std::filesystem::exists(with.uninterrupted() + "/checkpoint.bin.tmp"));
}

TEST(Resume, WhatCannotBeResumedIsAnInputError) {
  const std::string dir = test::temp_dir("resume-bad");
  test::write_file(dir + "/s.yaml", scenario());
  // A pipelined schedule never stops with nothing under way.
  auto r = run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/p --set algorithm.name=fedskd --set algorithm.schedule=pipelined");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("s.yaml:15: key 'output.checkpoint_every'"), std::string::npos) << r.output;
  // Not a run folder.
  r = run_fedgrid("resume " + dir);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(dir + "/run.json"), std::string::npos) << r.output;
  // The scenario changed since the run started.
  ASSERT_EQ(run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/a --log-level warn --set stop.rounds=2").exit_code, 0);
  test::write_file(dir + "/s.yaml", scenario() + "# edited\n");
  r = run_fedgrid("resume " + dir + "/a");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("changed since the run"), std::string::npos) << r.output;
  // A damaged checkpoint.
  test::write_file(dir + "/s.yaml", scenario());
  ASSERT_EQ(run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/b --log-level warn --set stop.rounds=2").exit_code, 0);
  std::string bytes = read_file(dir + "/b/checkpoint.bin");
  bytes[bytes.size() / 2] ^= 0x01;
  test::write_file(dir + "/b/checkpoint.bin", bytes);
  r = run_fedgrid("resume " + dir + "/b");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("checkpoint.bin"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace fedgrid

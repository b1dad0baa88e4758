// timing.compute: profile (issue "trust the clock"): the profile file, the charge it gives a
// job, worked out by hand, the errors of a profile that lacks what a run needs, and
// `fedgrid calibrate` writing a well-formed profile.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "sim/core/input_error.hpp"
#include "sim/jobs/compute.hpp"
#include "sim/jobs/calibration/compute_profile.hpp"
#include "sim/jobs/local_work.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

using test::cells;
using test::lines;
using test::read_file;
using test::run_fedgrid;
using test::write_file;

const std::string kHeader =
    "# fedgrid compute profile (fedgrid calibrate)\n# cpu: test\n# cores: 1\n# libtorch: x\n# compute_device: cpu\n"
    "device,arch,width_multiplier,input,classes,batch_size,threads,train_step_s,train_step_min_s,eval_sample_s,"
    "eval_sample_min_s,repeats,spread\n";
// An mlp on Fashion-MNIST's shape, measured at batch sizes 4 and 32 on device "lab".
const std::string kRows =
    "lab,mlp,1,1x28x28,10,4,1,0.002,0.0019,0.0001,0.00009,5,0.01\n"
    "lab,mlp,1,1x28x28,10,32,1,0.010,0.0095,0.00005,0.00004,5,0.01\n";

std::string profile_file(const std::string& tag, const std::string& rows = kRows) {
  const std::string path = test::temp_dir(tag) + "/profile.csv";
  write_file(path, kHeader + rows);
  return path;
}

models::ModelSpec mlp() {
  models::ModelSpec s;
  s.arch = "mlp";
  return s;
}

TEST(Profile, ChargesMeasuredBatchSizesAsMeasuredAndInterpolatesTheRest) {
  const auto p = ComputeProfile::load(profile_file("interp"), "timing.profile");
  EXPECT_DOUBLE_EQ(p.train_step_s("lab", mlp(), 32), 0.010);
  EXPECT_DOUBLE_EQ(p.train_step_s("lab", mlp(), 4), 0.002);
  EXPECT_DOUBLE_EQ(p.train_step_s("lab", mlp(), 18), 0.002 + (14.0 / 28.0) * 0.008);  // between: linear
  EXPECT_DOUBLE_EQ(p.train_step_s("lab", mlp(), 2), 0.001);                           // below: per sample of 4
  EXPECT_DOUBLE_EQ(p.train_step_s("lab", mlp(), 64), 0.020);                          // above: per sample of 32
  EXPECT_DOUBLE_EQ(p.eval_s("lab", mlp(), 100), 100 * 0.00005);                       // the largest batch's rate
}

TEST(Profile, AFolderHoldsOneFilePerMachine) {
  const std::string dir = test::temp_dir("folder");
  write_file(dir + "/a.csv", kHeader + kRows);
  write_file(dir + "/b.csv", kHeader + "clinic,mlp,1,1x28x28,10,32,1,0.04,0.04,0.001,0.001,5,0\n");
  write_file(dir + "/notes.txt", "not a profile");
  const auto p = ComputeProfile::load(dir, "timing.profile");
  EXPECT_EQ(p.devices(), "clinic, lab");
  EXPECT_DOUBLE_EQ(p.train_step_s("clinic", mlp(), 32), 0.04);
}

TEST(Profile, BadFilesNameTheFileLineAndColumn) {
  auto error_of = [](const std::string& rows) {
    try {
      ComputeProfile::load(profile_file("bad", rows), "timing.profile");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("lab,mlp,1,1x28x28,10,32,1,fast,0.01,0.1,0.1,5,0\n").find(":7: key 'train_step_s': expected a number"),
            std::string::npos);
  EXPECT_NE(error_of("lab,mlp,1,28x28,10,32,1,0.01,0.01,0.1,0.1,5,0\n").find("key 'input'"), std::string::npos);
  EXPECT_NE(error_of("lab,nosuch,1,1x28x28,10,32,1,0.01,0.01,0.1,0.1,5,0\n").find("key 'arch'"), std::string::npos);
  EXPECT_NE(error_of(kRows + "lab,mlp,1,1x28x28,10,32,1,0.01,0.01,0.1,0.1,5,0\n").find("twice"), std::string::npos);
  EXPECT_NE(error_of("").find("no rows"), std::string::npos);
  const std::string dir = test::temp_dir("nocol");
  write_file(dir + "/p.csv", "device,arch\nlab,mlp\n");
  EXPECT_THROW(ComputeProfile::load(dir + "/p.csv", "timing.profile"), InputError);
  EXPECT_THROW(ComputeProfile::load(dir + "/missing.csv", "timing.profile"), InputError);
}

TEST(Profile, AMissingModelOrDeviceSaysWhatToMeasure) {
  const auto p = ComputeProfile::load(profile_file("missing"), "timing.profile");
  models::ModelSpec cnn;
  cnn.arch = "cnn";
  try {
    p.train_step_s("lab", cnn, 32);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no row of cnn width 1 on 1x28x28, 10 classes for device 'lab'"),
              std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("fedgrid calibrate --models cnn@1:1x28x28:10"), std::string::npos);
  }
  EXPECT_THROW(p.train_step_s("elsewhere", mlp(), 32), InputError);
}

TEST(Profile, TrainingStepsCountTheBatchPlan) {
  for (int64_t n : {1, 2, 5, 31, 32, 33, 100, 129})
    for (int64_t batch : {1, 4, 32})
      for (int epochs : {1, 3})
        for (int64_t steps : {0, 1, 7, 50})
          for (bool drop : {false, true}) {
            std::map<int64_t, int64_t> expected;
            for (int64_t b : batch_plan(n, batch, epochs, steps, drop)) ++expected[b];
            EXPECT_EQ(training_steps(mlp(), n, batch, epochs, steps, drop).train_batches, expected)
                << n << " " << batch << " " << epochs << " " << steps << " " << drop;
          }
}

// Two groups on one profiled device, the second twice as fast; 100 samples in batches of 32:
// three steps of 32 and one of 4 per epoch, two epochs.
std::string profile_scenario(const std::string& profile, const std::string& extra_group = "") {
  return R"(name: profiled
seed: 3
platform:
  hospitals:
    - {count: 1, tier: weak, profile_device: lab}
    - {count: 1, tier: strong, profile_device: lab, speed_factor: 2})" +
         extra_group + R"(
data: {dataset: synthetic, samples_per_hospital: 100}
model: {arch: mlp}
training: {mode: timing-only, batch_size: 32, local_epochs: 2}
timing: {compute: profile, profile: )" +
         profile + R"(, network: cm02}
stop: {rounds: 1}
)";
}

TEST(Profile, ARunChargesEachJobItsProfiledSeconds) {
  const std::string dir = test::temp_dir("profiled-run");
  write_file(dir + "/s.yaml", profile_scenario(profile_file("profiled-run-p")));
  const auto r = run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const double job = 2 * (3 * 0.010 + 1 * 0.002);  // 0.064 s on the device itself
  const auto rows = lines(read_file(dir + "/out/hospitals.csv"));
  ASSERT_EQ(rows.size(), 3u);
  const auto header = cells(rows[0]);
  const size_t compute = size_t(std::find(header.begin(), header.end(), "compute_s") - header.begin());
  ASSERT_LT(compute, header.size());
  EXPECT_NEAR(std::stod(cells(rows[1])[compute]), job, 1e-9) << rows[1];
  EXPECT_NEAR(std::stod(cells(rows[2])[compute]), job / 2, 1e-9) << rows[2];
}

TEST(Profile, RunsWithoutWhatTheProfileNeedsAreInputErrors) {
  const std::string dir = test::temp_dir("profile-errors");
  const std::string profile = profile_file("profile-errors-p");
  auto expect_error = [&](const std::string& yaml, const std::string& sets, const std::string& expected) {
    write_file(dir + "/s.yaml", yaml);
    const auto r = run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/out " + sets);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(expected), std::string::npos) << r.output;
  };
  expect_error(profile_scenario(profile, "\n    - {count: 1, tier: medium}"), "",
               "'medium-1' (tier medium) names no profile device");
  expect_error(profile_scenario(profile, "\n    - {count: 1, tier: medium, profile_device: gpu}"), "",
               "profile device 'gpu'");
  expect_error(profile_scenario(profile), "--set model.arch=cnn", "no row of cnn width 1");
  expect_error(profile_scenario(profile), "--set timing.compute=flops", "key 'timing.profile'");
  expect_error(profile_scenario(profile), "--set timing.profile=" + dir + "/nothing.csv", "compute profile not found");
}

// The same two hospitals named by a roster's columns and by an XML platform's host properties.
std::string run_platform(const std::string& tag, const std::string& platform_yaml, const std::string& profile) {
  std::string yaml = profile_scenario(profile);
  const size_t from = yaml.find("platform:"), to = yaml.find("data:");
  yaml.replace(from, to - from, platform_yaml);
  const std::string dir = test::temp_dir(tag);
  write_file(dir + "/s.yaml", yaml);
  const auto r = run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/out");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return read_file(dir + "/out/hospitals.csv") + r.output;
}

TEST(Profile, RosterRowsAndXmlHostsNameTheirDeviceAndFactor) {
  const std::string profile = profile_file("platforms-p");
  const std::string dir = test::temp_dir("platforms");
  write_file(dir + "/roster.csv", "name,tier,profile_device,speed_factor\nslow,weak,lab,\nfast,strong,lab,2\n");
  const std::string job = "0.064000000", half = "0.032000000";  // as ARunChargesEachJobItsProfiledSeconds
  const auto roster = run_platform("roster-run", "platform: {roster: " + dir + "/roster.csv}\n", profile);
  EXPECT_NE(roster.find("1,slow,weak,100,2,,," + job), std::string::npos) << roster;
  EXPECT_NE(roster.find("1,fast,strong,100,2,,," + half), std::string::npos) << roster;

  write_file(dir + "/p.xml", R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1"><zone id="z" routing="Full">
  <host id="server" speed="1Gf"><prop id="tier" value="cloud"/></host>
  <host id="a" speed="1Gf"><prop id="tier" value="weak"/><prop id="profile_device" value="lab"/></host>
  <host id="b" speed="1Gf"><prop id="tier" value="strong"/><prop id="profile_device" value="lab"/><prop id="speed_factor" value="2"/></host>
  <link id="l" bandwidth="1Gbps" latency="0ms"/>
  <route src="a" dst="server"><link_ctn id="l"/></route><route src="b" dst="server"><link_ctn id="l"/></route>
  <route src="a" dst="b"><link_ctn id="l"/></route>
</zone></platform>
)");
  const auto xml = run_platform("xml-run", "platform: {xml: " + dir + "/p.xml}\n", profile);
  EXPECT_NE(xml.find("1,a,weak,100,2,,," + job), std::string::npos) << xml;
  EXPECT_NE(xml.find("1,b,strong,100,2,,," + half), std::string::npos) << xml;

  write_file(dir + "/bad.csv", "name,tier,profile_device,speed_factor\nslow,weak,lab,0\n");
  std::string yaml = profile_scenario(profile);
  yaml.replace(yaml.find("platform:"), yaml.find("data:") - yaml.find("platform:"),
               "platform: {roster: " + dir + "/bad.csv}\n");
  write_file(dir + "/bad.yaml", yaml);
  const auto r = run_fedgrid("run " + dir + "/bad.yaml --out " + dir + "/bad-out");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("bad.csv:2: key 'speed_factor'"), std::string::npos) << r.output;
}

TEST(Calibrate, WritesAWellFormedProfileOfThisMachine) {
  const std::string out = test::temp_dir("calibrate") + "/here.csv";
  const auto r = run_fedgrid("calibrate --models mlp@0.5:1x8x8:3 --batch-sizes 4,8 --device-name here --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string text = read_file(out);
  for (const char* line : {"# cpu: ", "# cores: ", "# libtorch: ", "# compute_device: ",
                           "# conditions: one process, no CPU quota"})
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  const auto p = ComputeProfile::load(out, "timing.profile");
  models::ModelSpec spec;
  spec.arch = "mlp", spec.width_multiplier = 0.5, spec.channels = 1, spec.height = 8, spec.width = 8;
  spec.num_classes = 3;
  EXPECT_TRUE(p.has_model("here", spec));
  EXPECT_GT(p.train_step_s("here", spec, 4), 0);
  EXPECT_GT(p.train_step_s("here", spec, 8), 0);
  EXPECT_GT(p.eval_s("here", spec, 10), 0);
}

// The train_step_s cell of `device`'s row in a profile's text, -1 when there is none.
double step_of(const std::string& text, const std::string& device) {
  const size_t at = text.find("\n" + device + ",");
  if (at == std::string::npos) return -1;
  std::stringstream row(text.substr(at + 1, text.find('\n', at + 1) - at - 1));
  std::string cell;
  for (int i = 0; i < 8; ++i) std::getline(row, cell, ',');  // train_step_s is the 8th column
  return std::stod(cell);
}

models::ModelSpec small_mlp() {
  models::ModelSpec spec;
  spec.arch = "mlp", spec.width_multiplier = 0.5, spec.channels = 1, spec.height = 8, spec.width = 8;
  spec.num_classes = 3;
  return spec;
}

TEST(Calibrate, CopiesStepAtOnceAndTheProfileSaysSo) {
  const std::string out = test::temp_dir("calibrate-load") + "/loaded.csv";
  const auto r = run_fedgrid("calibrate --models mlp@0.5:1x8x8:3 --batch-sizes 4 --device-name busy --copies 2 "
                             "--seconds 0.5 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string text = read_file(out);
  EXPECT_NE(text.find("# conditions: 2 processes stepping at once, no CPU quota; figures: means over a 0.5 s"),
            std::string::npos) << text;
  const auto p = ComputeProfile::load(out, "timing.profile");
  EXPECT_GT(p.train_step_s("busy", small_mlp(), 4), 0);
}

// Needs a writable cgroup cpu controller (root on most machines); skipped where there is none.
TEST(Calibrate, CpuSharesGiveOneRowEachMeasuredUnderItsQuota) {
  const std::string out = test::temp_dir("calibrate-shares") + "/shares.csv";
  const auto r = run_fedgrid("calibrate --models mlp@0.5:1x8x8:3 --batch-sizes 4 --device-name vm "
                             "--cpu-share 0.25,1 --seconds 1 --out " + out);
  if (r.exit_code == 2 && r.output.find("writable cgroup cpu controller") != std::string::npos)
    GTEST_SKIP() << r.output;
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string text = read_file(out);
  EXPECT_NE(text.find("each in a cgroup limited to its share of one CPU (0.25, 1; CFS quota, period 10000 us"),
            std::string::npos) << text;
  const double quarter = step_of(text, "vm@0.25"), whole = step_of(text, "vm@1");
  ASSERT_GT(quarter, 0) << text;
  ASSERT_GT(whole, 0) << text;
  // A quarter of a CPU takes about four times as long; 1.5 leaves room for a busy machine, where
  // the unlimited copy gets less than a whole CPU.
  EXPECT_GT(quarter / whole, 1.5) << text;
}

TEST(Calibrate, BadListsAreUsageErrors) {
  for (const char* args : {"--models nosuch", "--models cnn@5", "--models cnn:28x28", "--batch-sizes 0",
                           "--batch-sizes 8,x", "--threads 0", "--device-name a,b", "--copies 0",
                           "--cpu-share 0", "--cpu-share 1.5", "--cpu-share 0.5,0.5", "--cpu-share x",
                           "--cpu-share ,", "--seconds 0", "--seconds 2x", "--cpu-period-us 10"}) {
    const auto r = run_fedgrid(std::string("calibrate ") + args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
  }
}

}  // namespace
}  // namespace fedgrid

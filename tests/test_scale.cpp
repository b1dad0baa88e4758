// Scale without training: timing-only mode against real mode, the surrogate accuracy curve,
// and cohort representatives against one flow per hospital.
#include <gtest/gtest.h>

#include "sim/core/input_error.hpp"
#include "sim/engine/surrogate.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

using test::cells;
using test::lines;
using test::read_file;
using test::run_fedgrid;
using test::run_ok;

// Column `name` of a CSV text, row by row.
std::vector<std::string> column(const std::string& csv, const std::string& name) {
  auto rows = lines(csv);
  const auto header = cells(rows.at(0));
  const size_t c = size_t(std::find(header.begin(), header.end(), name) - header.begin());
  EXPECT_LT(c, header.size()) << name;
  std::vector<std::string> out;
  for (size_t r = 1; r < rows.size(); ++r) out.push_back(cells(rows[r]).at(c));
  return out;
}

TEST(TimingOnly, GivesTheSameSimulatedTimesAsRealTraining) {
  for (const char* algorithm : {"fedavg", "fedseq", "centralized"}) {
    const std::string yaml = test::tiny_scenario(std::string("to-") + algorithm) +
                             "algorithm: {name: " + algorithm + "}\noutput: {trace: false}\n";
    auto real = run_ok(std::string("real-") + algorithm, yaml);
    auto timing = run_ok(std::string("timing-") + algorithm, yaml, "--set training.mode=timing-only");
    // Every transfer and compute charge at the same simulated instant, with the same bytes.
    EXPECT_EQ(read_file(real + "/events.csv"), read_file(timing + "/events.csv")) << algorithm;
    const auto real_rounds = read_file(real + "/rounds.csv"), timing_rounds = read_file(timing + "/rounds.csv");
    for (const char* c : {"round", "sim_time_s", "bytes_up", "bytes_down", "messages", "participants", "energy_j"})
      EXPECT_EQ(column(real_rounds, c), column(timing_rounds, c)) << algorithm << " " << c;
    for (const auto& a : column(timing_rounds, "accuracy")) EXPECT_EQ(a, "") << "timing-only has no accuracy";
    for (const auto& l : column(read_file(timing + "/hospitals.csv"), "train_loss")) EXPECT_EQ(l, "");
  }
}

TEST(TimingOnly, SamplesPerHospitalSetsTheComputeCharge) {
  // 3 strong hospitals x 100 samples of the mlp on 12x12 inputs: flops = 3 x forward x samples.
  auto out = run_ok("spp", test::tiny_scenario("spp") + "output: {trace: false}\n",
                    "--set training.mode=timing-only --set data.samples_per_hospital=100");
  for (const auto& s : column(read_file(out + "/hospitals.csv"), "samples")) EXPECT_EQ(s, "100");
  for (const auto& row : lines(read_file(out + "/events.csv")))
    if (row.find(",compute,") != std::string::npos) {
      // mlp 144 -> 200 -> 200 -> 10: forward MACs 144*200 + 200*200 + 200*10 = 70,800; x2 FLOPs, x3 train.
      EXPECT_EQ(cells(row).at(6), std::to_string(int64_t(70800) * 2 * 3 * 100)) << row;
    }
}

TEST(TimingOnly, SurrogateCurveGivesAccuracyAndStopsOnTarget) {
  const std::string dir = test::temp_dir("surrogate");
  test::write_file(dir + "/curve.csv", "round,accuracy,loss\n1,0.40,2\n2,,\n3,0.70,1\n4,0.90,0.5\n");
  auto out = run_ok("surrogate-run", test::tiny_scenario("surrogate"),
                    "--set stop.rounds=10 --set stop.target_accuracy=0.8 --set training.mode=timing-only"
                    " --set training.surrogate=" + dir + "/curve.csv");
  EXPECT_EQ(column(read_file(out + "/rounds.csv"), "accuracy"),
            (std::vector<std::string>{"0.400000", "0.550000", "0.700000", "0.900000"}));
  EXPECT_NE(read_file(out + "/summary.json").find("\"stop_reason\": \"target_accuracy\""), std::string::npos);
}

TEST(TimingOnly, CurveInterpolatesBetweenRecordedRoundsOnly) {
  const std::string dir = test::temp_dir("curve");
  test::write_file(dir + "/c.csv", "accuracy,round\n0.5,2\n0.8,5\n");
  auto curve = AccuracyCurve::load(dir + "/c.csv");
  EXPECT_FALSE(curve.at(1));
  EXPECT_DOUBLE_EQ(*curve.at(2), 0.5);
  EXPECT_DOUBLE_EQ(*curve.at(3), 0.6);
  EXPECT_DOUBLE_EQ(*curve.at(5), 0.8);
  EXPECT_FALSE(curve.at(6));
}

TEST(TimingOnly, BadSurrogateFilesNameFileLineAndColumn) {
  const std::string dir = test::temp_dir("bad-curve");
  auto problem = [&](const std::string& text) {
    test::write_file(dir + "/c.csv", text);
    try {
      AccuracyCurve::load(dir + "/c.csv");
    } catch (const InputError& e) {
      return e.problems().at(0).to_string();
    }
    return std::string("no error");
  };
  EXPECT_EQ(problem("round,accuracy\n1,0.5\n2,high\n"), dir + "/c.csv:3: key 'accuracy': expected a number, got 'high'");
  EXPECT_EQ(problem("round,accuracy\n1,1.5\n"), dir + "/c.csv:2: key 'accuracy': must be within 0..1, got 1.5");
  EXPECT_EQ(problem("round,acc\n1,0.5\n"), dir + "/c.csv:1: key 'accuracy': required column is missing");
  EXPECT_EQ(problem("round,accuracy\n1,0.5\n1,0.6\n"), dir + "/c.csv:3: key 'round': round 1 appears twice");
  EXPECT_EQ(problem("round,accuracy\n1,\n"), dir + "/c.csv: key 'training.surrogate': the curve has no accuracy values");

  test::write_file(dir + "/s.yaml", test::tiny_scenario("bad-surrogate"));
  auto r = run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/out --set training.mode=timing-only"
                       " --set training.surrogate=" + dir + "/missing.csv");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("missing.csv: key 'training.surrogate': surrogate curve not found"), std::string::npos)
      << r.output;
}

TEST(TimingOnly, TimingOnlyKeysNeedTimingOnlyMode) {
  const std::string dir = test::temp_dir("needs-timing-only");
  test::write_file(dir + "/s.yaml", test::tiny_scenario("needs"));
  auto r = run_fedgrid("validate " + dir + "/s.yaml --set data.samples_per_hospital=50");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("key 'data.samples_per_hospital': needs training.mode: timing-only"), std::string::npos)
      << r.output;
  r = run_fedgrid("validate " + dir + "/s.yaml --set data.samples_per_hospital=50 --set training.mode=timing-only"
                  " --set timing.cohorts=true");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("key 'timing.cohorts': needs timing.network: cm02"), std::string::npos) << r.output;
}

// Hospitals of three tiers with equal sample counts: cohorts of 12, 8 and 5, and one of 2 weak
// hospitals with a faster uplink. A tight backbone makes them all contend.
std::string cohort_scenario(const std::string& name) {
  return "name: " + name + R"(
seed: 3
platform:
  hospitals:
    - {count: 12, tier: weak}
    - {count: 8, tier: medium}
    - {count: 5, tier: strong}
    - {count: 2, tier: weak, name: fast-weak, uplink_bps: 200e6}
  backbone: {bandwidth_bps: 1e9, latency_s: 0.003}
data: {samples_per_hospital: 200}
model: {arch: cnn}
training: {mode: timing-only}
timing: {network: cm02}
stop: {rounds: 2}
output: {trace: false}
)";
}

// More hospital actors at once than SimGrid's guarded stacks allow (two memory mappings each
// against vm.max_map_count, 65,530 by default): run.cpp's fit_actor_stacks drops the guard
// pages past that. 70,000 hospitals train side by side, as two do: the same round time.
TEST(SlowScale, SeventyThousandHospitalActorsAtOnce) {
  const std::string yaml = [](int count) {
    return "name: actors\nseed: 1\nplatform:\n  server: {tier: cloud}\n  hospitals: [{count: " + std::to_string(count) +
           ", tier: weak}]\ndata: {samples_per_hospital: 50}\nmodel: {arch: mlp}\ntraining: {mode: timing-only}\n"
           "algorithm: {name: local}\nstop: {rounds: 1}\noutput: {trace: false}\n";
  }(70000);
  const auto many = run_ok("actors-70000", yaml);
  const auto two = run_ok("actors-2", std::string(yaml).replace(yaml.find("70000"), 5, "2"));
  EXPECT_EQ(lines(read_file(many + "/hospitals.csv")).size(), 70001u);
  EXPECT_EQ(column(read_file(many + "/rounds.csv"), "sim_time_s"), column(read_file(two + "/rounds.csv"), "sim_time_s"));
}

TEST(Cohorts, MatchOneFlowPerHospitalExactly) {
  for (const char* algorithm : {"fedavg", "local"}) {
    const std::string yaml = cohort_scenario(std::string("cohorts-") + algorithm) + "algorithm: {name: " + algorithm + "}\n";
    auto each = run_ok(std::string("each-") + algorithm, yaml);
    auto grouped = run_ok(std::string("grouped-") + algorithm, yaml, "--set timing.cohorts=true");
    EXPECT_EQ(read_file(each + "/rounds.csv"), read_file(grouped + "/rounds.csv")) << algorithm;
    EXPECT_EQ(read_file(each + "/hospitals.csv"), read_file(grouped + "/hospitals.csv")) << algorithm;
    EXPECT_EQ(read_file(each + "/summary.json"), read_file(grouped + "/summary.json")) << algorithm;
  }
}

TEST(Cohorts, OneEventRowStandsForTheWholeCohort) {
  auto out = run_ok("cohort-events", cohort_scenario("cohort-events"), "--set timing.cohorts=true");
  const std::string events = read_file(out + "/events.csv");
  EXPECT_NE(events.find("server,send,weak-1+11,"), std::string::npos) << events;
  EXPECT_NE(events.find("strong-1+4,compute"), std::string::npos) << events;
  EXPECT_NE(events.find("server,send,fast-weak-1+1,"), std::string::npos) << events;
  EXPECT_EQ(events.find("weak-2,"), std::string::npos) << events;
}

// Refused at set-up, from the algorithm's traits (the engine's checks behind them are backstops).
TEST(Cohorts, APartialCohortIsAnInputError) {
  test::expect_run_input_error("partial-cohort", cohort_scenario("partial"),
                               "--set timing.cohorts=true --set algorithm.fraction=0.5",
                               "key 'timing.cohorts': cohorts act whole, and algorithm.fraction 0.5 of ");
  test::expect_run_input_error("lone-hospital", cohort_scenario("lone"),
                               "--set timing.cohorts=true --set algorithm.name=fedseq",
                               "key 'timing.cohorts': algorithm 'fedseq' has hospitals act on their own");
}

}  // namespace
}  // namespace fedgrid

// Heterogeneous populations (issue "scale with real heterogeneity"): platform.hospitals[].vary
// draws each hospital's figures from the scenario seed (sim/engine/population.hpp); a roster
// gives per-hospital sample counts. The draws are checked against the documented stream by
// hand, the population is the same twice, the drawn figures reach the simulated times, and
// bad declarations are exit 2 naming the key.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "data/rng.hpp"
#include "platforms/tier_catalog.hpp"
#include "sim/core/input_error.hpp"
#include "sim/core/seed_streams.hpp"
#include "sim/engine/population.hpp"
#include "sim/scenario/scenario.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

using test::cells;
using test::lines;
using test::read_file;

const platforms::TierCatalog& catalog() {
  static const auto tiers = platforms::load_tier_catalog(std::string(test::source_dir()) + "/platforms/tiers.yaml");
  return tiers;
}

Scenario scenario(const std::string& groups, const std::string& extra = "") {
  return load_scenario_text("seed: 9\nplatform:\n  hospitals:\n" + groups +
                                "training: {mode: timing-only}\ndata: {samples_per_hospital: 100}\n" + extra,
                            "p.yaml");
}

TEST(Population, DrawsFollowTheDocumentedStreamByHand) {
  const Scenario s = scenario(
      "    - {count: 2, tier: weak}\n"
      "    - count: 3\n      tier: medium\n      vary:\n"
      "        speed_flops: {dist: lognormal, median: 2.0e10, sigma: 0.5}\n"
      "        uplink_bps: {dist: uniform, min: 1.0e7, max: 1.0e8}\n"
      "        samples: {dist: lognormal, median: 300, sigma: 1, min: 50, max: 400}\n");
  const Population p = hospital_population(s, catalog());
  ASSERT_EQ(p.machines.size(), 5u);
  // Group 1, figure 0 (speed_flops), 1 (uplink_bps), 4 (samples): each its own stream.
  Rng speed(mix_seed(9, seed_streams::kPopulation, 1, 0)), uplink(mix_seed(9, seed_streams::kPopulation, 1, 1)),
      samples(mix_seed(9, seed_streams::kPopulation, 1, 4));
  for (size_t i = 2; i < 5; ++i) {
    EXPECT_EQ(p.machines[i].speed_flops, 2.0e10 * std::exp(0.5 * speed.normal())) << i;
    EXPECT_EQ(p.machines[i].uplink_bps, 1.0e7 + 9.0e7 * uplink.uniform()) << i;
    const double drawn = std::clamp(300 * std::exp(samples.normal()), 50.0, 400.0);
    EXPECT_EQ(p.samples[i], std::llround(drawn)) << i;
    EXPECT_EQ(p.machines[i].downlink_bps, catalog().find("medium")->downlink_bps) << "not drawn: the tier's";
  }
  // The weak group draws nothing: the tier's figures, data.samples_per_hospital.
  EXPECT_EQ(p.machines[0].speed_flops, catalog().find("weak")->speed_flops);
  EXPECT_EQ(p.samples[0], 100);
  EXPECT_NE(p.machines[2].speed_flops, p.machines[3].speed_flops);  // every hospital distinct
}

TEST(Population, SamePopulationTwiceAndEachFigureIndependentOfTheOthers) {
  const std::string group = "    - count: 50\n      tier: strong\n      vary:\n"
                            "        latency_s: {dist: uniform, min: 0.001, max: 0.05}\n";
  const auto a = hospital_population(scenario(group), catalog());
  const auto b = hospital_population(scenario(group), catalog());
  const auto c = hospital_population(
      scenario(group + "        speed_flops: {dist: lognormal, median: 1.0e11, sigma: 1}\n"), catalog());
  for (size_t i = 0; i < 50; ++i) {
    EXPECT_EQ(a.machines[i].latency_s, b.machines[i].latency_s);
    EXPECT_EQ(a.machines[i].latency_s, c.machines[i].latency_s) << "drawing speeds too changed the latencies";
    EXPECT_GE(a.machines[i].latency_s, 0.001);
    EXPECT_LT(a.machines[i].latency_s, 0.05);
  }
}

TEST(Population, EmpiricalResamplesTheObservedValuesWithinMinAndMax) {
  const std::string dir = test::temp_dir("population-empirical");
  test::write_file(dir + "/devices.csv", "# measured uplinks\ndevice,up\na,1e6\nb,5e6\nc,2e7\nd,9e7\n");
  const auto p = hospital_population(
      scenario("    - count: 200\n      tier: weak\n      vary:\n"
               "        uplink_bps: {dist: empirical, file: " + dir + "/devices.csv, column: up, max: 5.0e7}\n"),
      catalog());
  Rng pick(mix_seed(9, seed_streams::kPopulation, 0, 1));
  const double observed[] = {1e6, 5e6, 2e7, 9e7};
  std::set<double> seen;
  for (const auto& m : p.machines) {
    EXPECT_EQ(m.uplink_bps, std::min(observed[pick.below(4)], 5.0e7));
    seen.insert(m.uplink_bps);
  }
  EXPECT_EQ(seen, (std::set<double>{1e6, 5e6, 2e7, 5e7}));
}

TEST(Population, DrawnFiguresReachTheSimulatedTimes) {
  // mlp on 28x28 synthetic data: 1,192.8 kFLOP a training sample (119.28 MFLOP per 100 samples).
  const std::string dir = test::temp_dir("population-run");
  test::write_file(dir + "/s.yaml", "name: drawn\nseed: 5\nplatform:\n  hospitals:\n"
                                    "    - count: 4\n      tier: weak\n      vary:\n"
                                    "        speed_flops: {dist: uniform, min: 1.0e9, max: 4.0e9}\n"
                                    "        samples: {dist: uniform, min: 50, max: 500}\n"
                                    "data: {dataset: synthetic}\nmodel: {arch: mlp}\ntraining: {mode: timing-only}\n"
                                    "timing: {network: cm02}\nstop: {rounds: 1}\noutput: {trace: false}\n");
  const auto rows = test::hospital_rows(dir);
  ASSERT_EQ(rows.size(), 5u);
  Rng speed(mix_seed(5, seed_streams::kPopulation, 0, 0)), samples(mix_seed(5, seed_streams::kPopulation, 0, 4));
  for (size_t i = 1; i <= 4; ++i) {
    const double flops_per_s = 1.0e9 + 3.0e9 * speed.uniform();
    const int64_t n = std::llround(50 + 450 * samples.uniform());
    EXPECT_EQ(cells(rows[i])[3], std::to_string(n)) << rows[i];
    EXPECT_NEAR(std::stod(cells(rows[i])[7]), double(n) * 1.1928e6 / flops_per_s, 1e-8) << rows[i];
  }
}

TEST(Population, ARosterGivesSampleCounts) {
  const std::string dir = test::temp_dir("population-roster");
  test::write_file(dir + "/r.csv", "name,tier,samples\nsmall,weak,40\nlarge,strong,4000\nplain,medium,\n");
  test::write_file(dir + "/s.yaml", "name: roster\nplatform: {roster: r.csv}\ndata: {dataset: synthetic, "
                                    "samples_per_hospital: 700}\nmodel: {arch: mlp}\ntraining: {mode: timing-only}\n"
                                    "stop: {rounds: 1}\noutput: {trace: false}\n");
  const auto rows = test::hospital_rows(dir);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(cells(rows[1])[3] + " " + cells(rows[2])[3] + " " + cells(rows[3])[3], "40 4000 700");
}

TEST(Population, BadDeclarationsAreInputErrors) {
  const std::string dir = test::temp_dir("population-bad");
  test::write_file(dir + "/v.csv", "uplink_bps\n1e6\nfast\n");
  test::write_file(dir + "/r.csv", "name,tier,samples\na,weak,12.5\n");
  const std::string base = "name: bad\nseed: 1\nplatform:\n  hospitals:\n    - count: 2\n      tier: weak\n      vary:\n";
  const std::string tail = "data: {dataset: synthetic}\nmodel: {arch: mlp}\ntraining: {mode: timing-only}\nstop: {rounds: 1}\n";
  const std::pair<std::string, std::string> cases[] = {
      {base + "        speed_flops: {dist: lognormal, median: 1.0e9}\n" + tail,
       "s.yaml:8: key 'platform.hospitals[0].vary.speed_flops': lognormal needs median and sigma"},
      {base + "        uplink_bps: {dist: uniform, min: 5.0e6, max: 1.0e6}\n" + tail, "min is above max"},
      {base + "        uplink_bps: {dist: uniform, min: 0, max: 1.0e6}\n" + tail, "min must be positive"},
      {base + "        uplink_bps: {dist: normal, min: 0, max: 1.0e6}\n" + tail,
       "key 'platform.hospitals[0].vary.uplink_bps.dist'"},
      {base + "        uplink_bps: {dist: uniform, min: 1, max: 2, file: v.csv}\n" + tail, "file and column are empirical's"},
      {base + "        uplink_bps: {dist: empirical, file: v.csv}\n" + tail, "v.csv:3: key 'uplink_bps': expected a number, got 'fast'"},
      {base + "        uplink_bps: {dist: empirical, file: nowhere.csv}\n" + tail,
       "nowhere.csv: key 'platform.hospitals[0].vary.uplink_bps.file': file not found"},
      {base + "        samples: {dist: uniform, min: 10, max: 20}\n" + tail.substr(0, tail.find("training")) +
           "stop: {rounds: 1}\n",
       "key 'platform.hospitals[0].vary.samples': needs training.mode: timing-only"},
      {base + "        samples: {dist: uniform, min: 10, max: 20}\n    - {count: 1, tier: strong}\n" + tail,
       "platform.hospitals[1] has no sample count while other hospitals do"},
      {"name: bad\nplatform: {roster: r.csv}\n" + tail, "r.csv:2: key 'samples': expected a positive whole number"},
  };
  for (const auto& [yaml, expected] : cases) {
    test::write_file(dir + "/s.yaml", yaml);
    for (const char* command : {"validate ", "run "}) {
      auto r = test::run_fedgrid(command + dir + "/s.yaml --out " + dir + "/out");
      EXPECT_EQ(r.exit_code, 2) << command << yaml << r.output;
      EXPECT_NE(r.output.find(expected), std::string::npos) << command << "\n" << yaml << r.output;
    }
  }
}

}  // namespace
}  // namespace fedgrid

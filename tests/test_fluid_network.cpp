// timing.network: fluid (sim/engine/star_fluid.hpp): the server links' sharing computed
// incrementally gives SimGrid's CM02 figures: by hand on a star where the sharing binds, and
// transfer by transfer against a cm02 run of a heterogeneous federation. What it cannot model
// is refused with exit code 2.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

// Each (round, host, peer) send's end times, in order.
std::map<std::string, std::vector<double>> send_ends(const std::string& run) {
  std::map<std::string, std::vector<double>> ends;
  const auto rows = test::lines(test::read_file(run + "/events.csv"));
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto c = test::cells(rows[i]);
    if (c.at(3) == "send") ends[c.at(7) + " " + c.at(2) + " " + c.at(4)].push_back(std::stod(c.at(1)));
  }
  for (auto& [key, v] : ends) std::sort(v.begin(), v.end());
  return ends;
}

// Three hospitals upload at the same instant through a server downlink of 6e6 B/s. Equal route
// latencies (0.01 s) give equal weights: the fair share is 2e6 B/s, above hospital 3's own
// uplink (1e6 B/s), so it keeps 1e6 and the other two share 5e6: 2.5e6 each.
TEST(FluidNetwork, ASharedServerLinkByHand) {
  const std::string dir = test::temp_dir("fluid-hand");
  test::write_file(dir + "/tiers.yaml", R"(tiers:
  hosp: {speed_flops: 1.0e9, cores: 1, memory_gb: 1, uplink_bps: 8.0e9, downlink_bps: 8.0e9, latency_s: 0.01, power_idle_w: 10, power_max_w: 20}
  srv: {speed_flops: 4.0e9, cores: 1, memory_gb: 1, uplink_bps: 8.0e9, downlink_bps: 4.8e7, latency_s: 0, power_idle_w: 10, power_max_w: 20}
)");
  test::write_file(dir + "/s.yaml", "name: fluid-hand\nseed: 3\nplatform:\n  tiers: " + dir + R"(/tiers.yaml
  server: {tier: srv}
  backbone: {bandwidth_bps: 1.0e11}
  hospitals:
    - {count: 2, tier: hosp, name: fast}
    - {count: 1, tier: hosp, name: slow, uplink_bps: 8.0e6}
data: {samples_per_hospital: 100}
model: {arch: cnn}
training: {mode: timing-only}
stop: {rounds: 1}
timing: {network: fluid}
)");
  const auto r = test::run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  double upload_start = -1, size = 0;
  std::map<std::string, double> upload_end;
  const auto rows = test::lines(test::read_file(dir + "/out/events.csv"));
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto c = test::cells(rows[i]);
    if (c[3] == "send" && c[4] == "server") {
      upload_start = std::stod(c[0]), upload_end[c[2]] = std::stod(c[1]), size = std::stod(c[5]);
    }
  }
  ASSERT_EQ(upload_end.size(), 3u);
  EXPECT_EQ(size, 582026.0 * 4 + 64);  // the cnn's state and the message header
  EXPECT_NEAR(upload_end["fast-1"] - upload_start, 0.01 + size / 2.5e6, 1e-9);
  EXPECT_NEAR(upload_end["fast-2"] - upload_start, 0.01 + size / 2.5e6, 1e-9);
  EXPECT_NEAR(upload_end["slow-1"] - upload_start, 0.01 + size / 1e6, 1e-9);
  EXPECT_NE(test::read_file(dir + "/out/summary.json").find("\"model\": \"fluid\""), std::string::npos);
}

// Distinct hospitals (every figure drawn), all uploading and downloading over shared server
// links at once: every transfer ends where cm02's ends, to SimGrid's own precision.
TEST(FluidNetwork, TransfersEndWhereCm02Ends) {
  const std::string dir = test::temp_dir("fluid-cm02");
  test::write_file(dir + "/s.yaml", R"(name: fluid-vs-cm02
seed: 11
platform:
  server: {tier: cloud}
  hospitals:
    - count: 40
      tier: weak
      vary:
        speed_flops: {dist: lognormal, median: 5.0e10, sigma: 0.5}
        uplink_bps: {dist: lognormal, median: 2.0e7, sigma: 0.7}
        downlink_bps: {dist: lognormal, median: 1.0e8, sigma: 0.7}
        latency_s: {dist: lognormal, median: 0.02, sigma: 0.4}
        samples: {dist: lognormal, median: 500, sigma: 1.0, min: 20}
    - count: 20
      tier: strong
      vary:
        uplink_bps: {dist: uniform, min: 5.0e8, max: 5.0e9}
        latency_s: {dist: uniform, min: 0.001, max: 0.01}
        samples: {dist: uniform, min: 100, max: 20000}
model: {arch: cnn}
training: {mode: timing-only}
algorithm: {name: fedavg, fraction: 0.8}
stop: {rounds: 3}
)");
  // The strong hospitals' links alone add up to more than the server's 10 Gbit/s each way, so
  // the sharing binds in both directions.
  const std::string run = "run " + dir + "/s.yaml --out " + dir;
  const auto exact = test::run_fedgrid(run + "/cm02 --set timing.network=cm02");
  const auto fluid = test::run_fedgrid(run + "/fluid --set timing.network=fluid");
  ASSERT_EQ(exact.exit_code, 0) << exact.output;
  ASSERT_EQ(fluid.exit_code, 0) << fluid.output;
  const auto a = send_ends(dir + "/cm02"), b = send_ends(dir + "/fluid");
  ASSERT_EQ(a.size(), b.size());
  size_t compared = 0;
  for (const auto& [key, ends] : a) {
    ASSERT_TRUE(b.count(key)) << key;
    ASSERT_EQ(ends.size(), b.at(key).size()) << key;
    for (size_t i = 0; i < ends.size(); ++i, ++compared)
      EXPECT_NEAR(b.at(key)[i], ends[i], 1e-6 * ends[i]) << key;
  }
  EXPECT_EQ(compared, 2u * 48 * 3);  // 80% of 60 hospitals, a download and an upload each, 3 rounds
}

TEST(FluidNetwork, WhatItCannotModelIsRefused) {
  const std::string base = test::tiny_scenario("fluid-refused", "timing: {network: fluid}\n");
  test::expect_run_input_error("fluid-faults", base, "--set faults.offline_probability=0.1", "cannot cut a transfer");
  test::expect_run_input_error("fluid-cohorts", base, "--set training.mode=timing-only --set timing.cohorts=true",
                               "choose one");
  test::expect_run_input_error("fluid-backbone", base, "--set platform.backbone.bandwidth_bps=1e9",
                               "platform.backbone.bandwidth_bps");
  test::expect_run_input_error("fluid-peers", base, "--set algorithm.name=fedskd", "sends between hospitals");
}

}  // namespace
}  // namespace fedgrid

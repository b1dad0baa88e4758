// timing.lv08.*: SimGrid's LV08 factors as scenario keys (docs/guide/time-model.md, "Which network
// model"). A lone transfer under LV08 takes latency_factor x its route's latency + bytes /
// (bandwidth_factor x its narrowest link), computed here by hand; unset, the keys leave SimGrid's
// own factors (13.01, 0.97); under another network model they are refused.
#include <gtest/gtest.h>

#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

// One hospital (8 Mbit/s up, 16 down, 10 ms) and the server (80 Mbit/s, 1 ms): no link is shared.
std::string lone_hospital(const std::string& dir) {
  test::write_file(dir + "/tiers.yaml", R"(tiers:
  hosp: {speed_flops: 1.0e9, cores: 1, memory_gb: 1, uplink_bps: 8.0e6, downlink_bps: 16.0e6, latency_s: 0.01, power_idle_w: 10, power_max_w: 20}
  srv: {speed_flops: 4.0e9, cores: 1, memory_gb: 1, uplink_bps: 8.0e7, downlink_bps: 8.0e7, latency_s: 0.001, power_idle_w: 10, power_max_w: 20}
)");
  return "name: lv08\nseed: 5\nplatform:\n  tiers: " + dir +
         "/tiers.yaml\n  server: {tier: srv}\n  hospitals:\n    - {count: 1, tier: hosp}\n"
         "data: {dataset: synthetic, samples_per_hospital: 64}\nmodel: {arch: mlp}\n"
         "training: {mode: timing-only, batch_size: 32, local_epochs: 1}\nalgorithm: {name: fedavg}\nstop: {rounds: 1}\n";
}

void expect_lone_sends(const std::string& sets, double latency_factor, double bandwidth_factor) {
  const std::string dir = test::temp_dir("lv08");
  test::write_file(dir + "/s.yaml", lone_hospital(dir));
  const auto r = test::run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/out " + sets);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  int sends = 0;
  for (const auto& e : test::events(dir + "/out")) {
    if (e.kind != "send") continue;
    ++sends;
    const double bytes_per_s = (e.host == "server" ? 16e6 : 8e6) / 8;
    const double expected = latency_factor * 0.011 + e.bytes / (bandwidth_factor * bytes_per_s);
    EXPECT_NEAR(e.end - e.start, expected, 1e-6 * expected) << e.host << " -> " << e.peer;
  }
  EXPECT_EQ(sends, 2);
}

TEST(Lv08Factors, UnsetTheyAreSimGridsOwn) { expect_lone_sends("", 13.01, 0.97); }

TEST(Lv08Factors, SetTheyChargeEveryTransfer) {
  expect_lone_sends("--set timing.lv08.latency_factor=4 --set timing.lv08.bandwidth_factor=0.9", 4, 0.9);
}

TEST(Lv08Factors, AnotherNetworkModelRefusesThem) {
  const std::string dir = test::temp_dir("lv08-refused");
  test::write_file(dir + "/s.yaml", lone_hospital(dir));
  for (const char* command : {"validate ", "run "}) {
    const auto r = test::run_fedgrid(command + dir + "/s.yaml --set timing.network=cm02 --set timing.lv08.latency_factor=4 --out " +
                                     dir + "/out");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("timing.lv08"), std::string::npos) << r.output;
  }
}

}  // namespace
}  // namespace fedgrid

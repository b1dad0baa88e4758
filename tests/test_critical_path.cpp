// What ended a round (sim/engine/critical_path.hpp, output.critical_path): the chain walked back
// from the report, split into phases that sum to the round's duration, with each transfer's time
// above what it would take alone counted as contention; on a hand-made round and on real runs of
// every kind of schedule (parallel, sequential, asynchronous, peer to peer).
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "sim/engine/critical_path.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

Activity send(double start, double end, const std::string& from, const std::string& to, double alone) {
  Activity a{start, end, from, "send", to, 1000, 0, 1};
  a.alone_s = alone;
  return a;
}
Activity work(double start, double end, const std::string& host, const std::string& kind = "compute") {
  return {start, end, host, kind, "", 0, 1e9, 1};
}

// Two hospitals: h2's download shares the server's link (2 s where 1 s alone), it computes
// longest and its upload arrives last; the server aggregates, and reports 0.2 s later.
std::vector<Activity> two_hospital_round() {
  return {send(0, 1, "server", "h1", 1), send(0, 2, "server", "h2", 1), work(1, 3, "h1"), work(2.5, 5, "h2"),
          send(3, 4, "h1", "server", 1), send(5, 6.5, "h2", "server", 1.5), work(6.5, 7, "server", "server")};
}

TEST(CriticalPath, WalksBackFromTheReportThroughTheLastArrival) {
  const CriticalPath p = critical_path(two_hospital_round(), 0, 7.2, "server");
  EXPECT_EQ(p.host, "h2");
  EXPECT_DOUBLE_EQ(p.server_s, 0.5);
  EXPECT_DOUBLE_EQ(p.uplink_s, 1.5);
  EXPECT_DOUBLE_EQ(p.compute_s, 2.5);
  EXPECT_DOUBLE_EQ(p.downlink_s, 2);
  EXPECT_DOUBLE_EQ(p.peer_s, 0);
  EXPECT_DOUBLE_EQ(p.idle_s, 0.2 + 0.5);  // after the server's work; h2 between download and compute
  EXPECT_DOUBLE_EQ(p.contention_s, 1);    // the download's second
  EXPECT_NEAR(p.server_s + p.uplink_s + p.compute_s + p.downlink_s + p.peer_s + p.idle_s, 7.2, 1e-12);
}

TEST(CriticalPath, ActivitiesBegunBeforeTheRoundCountFromItsStart) {
  const CriticalPath p = critical_path(two_hospital_round(), 3, 7.2, "server");
  EXPECT_DOUBLE_EQ(p.compute_s, 2);  // h2's compute from 3 to 5
  EXPECT_DOUBLE_EQ(p.downlink_s, 0);
  EXPECT_NEAR(p.server_s + p.uplink_s + p.compute_s + p.downlink_s + p.peer_s + p.idle_s, 4.2, 1e-12);
}

TEST(CriticalPath, PeerTransfersAndUnknownAloneTimes) {
  // A relay: h1 computes, hands its model to h2 (no alone time known), h2 computes and reports.
  const std::vector<Activity> relay{work(0, 2, "h1"), send(2, 3, "h1", "h2", -1), work(3, 6, "h2")};
  const CriticalPath p = critical_path(relay, 0, 6, "server");
  EXPECT_EQ(p.host, "h2");
  EXPECT_DOUBLE_EQ(p.compute_s, 5);
  EXPECT_DOUBLE_EQ(p.peer_s, 1);
  EXPECT_DOUBLE_EQ(p.idle_s, 0);
  EXPECT_LT(p.contention_s, 0);
}

TEST(CriticalPath, ARoundWithNothingIsIdle) {
  const CriticalPath p = critical_path({}, 1, 4, "server");
  EXPECT_EQ(p.host, "server");
  EXPECT_DOUBLE_EQ(p.idle_s, 3);
}

// rounds.csv's split against the rows' durations, for a scenario's schedule.
void expect_split_sums(const std::string& name, const std::string& algorithm_block, const std::string& extra = "") {
  SCOPED_TRACE(name);
  const std::string dir = test::temp_dir("critical-" + name);
  test::write_file(dir + "/s.yaml", "name: " + name +
                                        "\nseed: 3\nplatform:\n  server: {tier: cloud}\n"
                                        "  hospitals:\n    - {count: 3, tier: weak}\n    - {count: 2, tier: strong}\n"
                                        "data: {dataset: synthetic, samples_per_hospital: 96}\nmodel: {arch: cnn}\n"
                                        "training: {mode: timing-only, batch_size: 32, local_epochs: 1}\n" +
                                        algorithm_block + "stop: {rounds: 4}\noutput: {critical_path: true}\n" + extra);
  const auto r = test::run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto rows = test::read_csv(dir + "/out/rounds.csv");
  ASSERT_FALSE(rows.empty());
  double previous = 0;
  for (const auto& row : rows) {
    const double now = std::stod(row.at("sim_time_s"));
    double sum = 0;
    for (const char* c : {"cp_downlink_s", "cp_compute_s", "cp_uplink_s", "cp_peer_s",
                          "cp_server_s", "cp_idle_s"})
      sum += std::stod(row.at(c));
    // The ledger checks the split to 1e-9 s before writing (round_ledger.cpp); written with nine
    // decimals, each of the eight cells rounds by up to 5e-10.
    EXPECT_NEAR(sum, now - previous, 4e-9) << "round " << row.at("round");
    EXPECT_FALSE(row.at("cp_host").empty());
    previous = now;
  }
  for (const auto& row : test::read_csv(dir + "/out/hospitals.csv")) {
    if (row.at("status") == "ok") EXPECT_FALSE(row.at("idle_s").empty()) << row.at("hospital");
    if (!row.at("idle_s").empty()) EXPECT_GE(std::stod(row.at("idle_s")), 0);
  }
}

TEST(CriticalPath, TheSplitSumsToEachRoundOnEveryKindOfSchedule) {
  expect_split_sums("parallel", "algorithm: {name: fedavg}\n");
  expect_split_sums("sequential", "algorithm: {name: fedseq}\n");
  expect_split_sums("asynchronous", "algorithm: {name: fedasync}\n");
  expect_split_sums("peer", "algorithm: {name: fedskd}\n");
}

// A lone hospital's transfers take what they take alone, under CM02 and under LV08 (whose rule,
// with SimGrid's factors, TCP-gamma and cross-traffic caps, the alone time follows); hospitals
// sharing a narrow server link wait for each other: contention.
double contention(const std::string& tag, int hospitals, const std::string& network, double server_bps) {
  const std::string dir = test::temp_dir("contention-" + tag);
  test::write_file(dir + "/tiers.yaml",
                   "tiers:\n  hosp: {speed_flops: 1.0e9, cores: 1, memory_gb: 1, uplink_bps: 8.0e6, downlink_bps: "
                   "16.0e6, latency_s: 0.01, power_idle_w: 10, power_max_w: 20}\n  srv: {speed_flops: 4.0e9, cores: 1, "
                   "memory_gb: 1, uplink_bps: " + std::to_string(server_bps) + ", downlink_bps: " +
                       std::to_string(server_bps) + ", latency_s: 0.001, power_idle_w: 10, power_max_w: 20}\n");
  test::write_file(dir + "/s.yaml", "name: c\nseed: 5\nplatform:\n  tiers: " + dir +
                                        "/tiers.yaml\n  server: {tier: srv}\n  hospitals:\n    - {count: " +
                                        std::to_string(hospitals) +
                                        ", tier: hosp}\ndata: {dataset: synthetic, samples_per_hospital: 64}\n"
                                        "model: {arch: mlp}\ntraining: {mode: timing-only, batch_size: 32}\n"
                                        "algorithm: {name: fedavg}\nstop: {rounds: 2}\ntiming: {network: " + network +
                                        "}\noutput: {critical_path: true}\n");
  const auto r = test::run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/out");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  double most = 0;
  for (const auto& row : test::read_csv(dir + "/out/rounds.csv")) most = std::max(most, std::stod(row.at("cp_contention_s")));
  return most;
}

TEST(CriticalPath, ALoneTransferHasNoContentionAndSharedLinksDo) {
  EXPECT_NEAR(contention("cm02", 1, "cm02", 8e7), 0, 1e-9);
  EXPECT_NEAR(contention("lv08", 1, "default", 8e7), 0, 1e-9);
  EXPECT_GT(contention("shared", 6, "cm02", 1.6e7), 0.1);
}

}  // namespace
}  // namespace fedgrid

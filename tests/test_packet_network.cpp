// timing.network: ns3 (sim/network/packet_network.hpp). PacketNetwork: transfers driven from
// SimGrid actors against figures computed by hand from the link (each test its own process: one
// SimGrid engine and one ns-3 simulator per process). PacketRuns: whole federations under ns3,
// one short case per pattern family (the round's burst and broadcast, FedSeq's relay, FedSKD's
// peer posts), the same bytes twice and after a resume, and what ns3 refuses.
#include <gtest/gtest.h>

#include <simgrid/s4u.hpp>

#include <cmath>
#include <functional>
#include <map>

#include "sim/network/packet_network.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {
namespace sg4 = simgrid::s4u;
using network::Attachment;
using network::PacketNetwork;

// Bytes on the wire per segment besides its payload: IPv4 20 + TCP 20 + timestamp option 12,
// and the point-to-point link's own 2-byte header.
constexpr double kHeaderBytes = 54, kMss = 1448;
double wire_seconds(double payload, double bps) {
  return (payload + std::ceil(payload / kMss) * kHeaderBytes) * 8 / bps;
}

// Host 0 (the "server") behind `server` (by default a 10 Gbit/s link with no delay), hosts 1.. as
// given. Each job runs in its own actor from its start time; returns every transfer's (start, end).
struct Job {
  int from, to;
  int64_t bytes;
  double at = 0;
};
std::vector<std::pair<double, double>> simulate(const std::vector<Attachment>& hospitals, const std::vector<Job>& jobs,
                                                Attachment server = {10e9, 10e9, 0}) {
  int argc = 1;
  char name[] = "packet-network-test";
  char* argv[] = {name, nullptr};
  sg4::Engine engine(&argc, argv);
  auto* zone = sg4::create_full_zone("world");
  sg4::Host* host = zone->create_host("server", 1e9);
  zone->seal();
  std::vector<Attachment> hosts{server};
  hosts.insert(hosts.end(), hospitals.begin(), hospitals.end());
  PacketNetwork net(hosts, network::TcpSettings{}, host);
  std::vector<std::pair<double, double>> times(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i)
    sg4::Actor::create("job" + std::to_string(i), host, [&, i] {
      sg4::this_actor::sleep_until(jobs[i].at);
      times[i].first = sg4::Engine::get_clock();
      net.transfer(jobs[i].from, jobs[i].to, jobs[i].bytes);
      times[i].second = sg4::Engine::get_clock();
    });
  engine.run();
  EXPECT_EQ(net.stats().transfers, jobs.size());
  return times;
}

// 1,000 bytes over 10 Mbit/s and 10 ms: SYN out, SYN-ACK back, then the data out: three one-way
// delays, plus the serialisation of at most four packets (SYN, SYN-ACK, ACK, data) at 10 Mbit/s.
TEST(PacketNetwork, OneSmallMessageTakesTheHandshakeAndOneWay) {
  const auto t = simulate({{10e6, 10e6, 0.010}}, {{1, 0, 1000}});
  const double d = t[0].second - t[0].first;
  EXPECT_GE(d, 3 * 0.010 + wire_seconds(1000, 10e6));
  EXPECT_LE(d, 3 * 0.010 + 4 * 1500 * 8 / 10e6);
}

// 10 MB over 10 Mbit/s with 1 ms of delay: the window (10 segments at first) exceeds the path's
// bandwidth-delay product (2.5 KB) from the start, so the link is busy throughout and the
// transfer takes its wire bytes (payload and headers) at the link's rate, plus the handshake.
TEST(PacketNetwork, ALongTransferRunsAtTheLinkRateLessItsHeaders) {
  const auto t = simulate({{10e6, 10e6, 0.001}}, {{1, 0, 10000000}});
  const double expected = 3 * 0.001 + wire_seconds(10e6, 10e6);
  EXPECT_NEAR(t[0].second - t[0].first, expected, 0.005 * expected);
}

// The same transfer started at 0 and at 5.25 s (from another actor, while nothing else moves)
// takes the same time to the nanosecond: ns-3 enters each transfer at the SimGrid instant asked.
TEST(PacketNetwork, ATransferTakesTheSameTimeWhenEverItStarts) {
  const auto t = simulate({{20e6, 100e6, 0.020}, {20e6, 100e6, 0.020}}, {{1, 0, 2300000, 0}, {2, 0, 2300000, 5.25}});
  EXPECT_EQ(t[1].first, 5.25);
  EXPECT_NEAR(t[1].second - t[1].first, t[0].second - t[0].first, 1e-9);
}

// Ten 1 MB uploads at once through a 20 Mbit/s server downlink (the uploaders' own links are
// 100 Mbit/s): all end, and the last when the bottleneck has carried every wire byte, plus the
// handshake and the slow start of TCP (at most 10% here).
TEST(PacketNetwork, TenUploadsShareTheServersDownlinkAndAllEnd) {
  std::vector<Job> jobs;
  for (int i = 1; i <= 10; ++i) jobs.push_back({i, 0, 1000000});
  const auto t = simulate(std::vector<Attachment>(10, {100e6, 100e6, 0.005}), jobs, {20e6, 20e6, 0});
  double last = 0;
  for (const auto& [start, end] : t) last = std::max(last, end);
  const double carried = 10 * wire_seconds(1e6, 20e6);
  EXPECT_GE(last, carried);
  EXPECT_LE(last, 1.10 * carried);
}

// Two transfers between the same pair of hosts at once (SimGrid 3.32's own ns-3 binding aborts
// here, "total_bytes is not sent_bytes"): both end, each later than it would alone.
TEST(PacketNetwork, TwoTransfersBetweenTheSamePairAtOnce) {
  const auto t = simulate({{20e6, 20e6, 0.005}}, {{1, 0, 2300000}, {1, 0, 2300000}});
  const double alone = 3 * 0.005 + wire_seconds(2.3e6, 20e6);
  for (const auto& [start, end] : t) EXPECT_GT(end - start, alone);
  EXPECT_GE(std::max(t[0].second, t[1].second), 2 * wire_seconds(2.3e6, 20e6));
}

// --- whole runs ---

// Round figures: hospitals 8 Mbit/s up, 16 down, 10 ms; the server 80 Mbit/s, 1 ms.
std::string tiers_file(const std::string& dir) {
  test::write_file(dir + "/tiers.yaml", R"(tiers:
  hosp: {speed_flops: 1.0e9, cores: 1, memory_gb: 1, uplink_bps: 8.0e6, downlink_bps: 16.0e6, latency_s: 0.01, power_idle_w: 10, power_max_w: 20}
  srv: {speed_flops: 4.0e9, cores: 1, memory_gb: 1, uplink_bps: 8.0e7, downlink_bps: 8.0e7, latency_s: 0.001, power_idle_w: 10, power_max_w: 20}
)");
  return dir + "/tiers.yaml";
}

std::string run_scenario(const std::string& dir, const std::string& algorithm, int hospitals = 4) {
  return "name: packet-runs\nseed: 5\nplatform:\n  tiers: " + tiers_file(dir) +
         "\n  server: {tier: srv}\n  hospitals:\n    - {count: " + std::to_string(hospitals) +
         ", tier: hosp}\ndata: {dataset: synthetic, samples_per_hospital: 64}\nmodel: {arch: mlp}\n"
         "training: {mode: timing-only, batch_size: 32, local_epochs: 1}\nalgorithm: {name: " +
         algorithm + "}\nstop: {rounds: 2}\ntiming: {network: ns3}\n";
}

// Every send under ns3 takes at least what no packet network can beat: the route's latency
// (hospital 10 ms + server 1 ms) and its bytes at the route's narrowest rate; and the run moves
// the same transfers as under cm02.
void expect_physical_sends(const std::string& algorithm, const std::string& sets = "") {
  const std::string dir = test::temp_dir("packet-" + algorithm);
  test::write_file(dir + "/s.yaml", run_scenario(dir, algorithm));
  for (const char* model : {"ns3", "cm02"}) {
    const auto r = test::run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/" + model + " --set timing.network=" +
                                     model + " " + sets);
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  std::map<std::string, int> sends_ns3, sends_cm02;
  for (const auto& e : test::events(dir + "/ns3")) {
    if (e.kind != "send") continue;
    ++sends_ns3[e.host + ">" + e.peer];
    const bool hospital_to_hospital = e.host != "server" && e.peer != "server";
    const double bps = e.host == "server" ? 16e6 : 8e6;
    const double latency = hospital_to_hospital ? 0.02 : 0.011;
    EXPECT_GE(e.end - e.start, latency + e.bytes * 8 / bps) << e.host << " -> " << e.peer << " in round " << e.round;
  }
  for (const auto& e : test::events(dir + "/cm02"))
    if (e.kind == "send") ++sends_cm02[e.host + ">" + e.peer];
  EXPECT_FALSE(sends_ns3.empty());
  EXPECT_EQ(sends_ns3, sends_cm02);
}

TEST(PacketRuns, ABroadcastAndABurstOfUploads) { expect_physical_sends("fedavg"); }
TEST(PacketRuns, FedSeqsRelay) { expect_physical_sends("fedseq"); }
TEST(PacketRuns, FedSkdsPeerPosts) { expect_physical_sends("fedskd"); }

TEST(PacketRuns, TheSameRunGivesTheSameBytesTwiceAndAfterAResume) {
  const std::string dir = test::temp_dir("packet-same");
  std::string yaml = run_scenario(dir, "fedavg");
  yaml.replace(yaml.find("rounds: 2"), 9, "rounds: 4");
  test::write_file(dir + "/s.yaml", yaml);
  const auto again = test::run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/again");
  ASSERT_EQ(again.exit_code, 0) << again.output;
  test::expect_resume_gives_same_bytes(dir, "--set output.checkpoint_every=1");
  for (const char* f : {"rounds.csv", "hospitals.csv", "events.csv", "summary.json"})
    EXPECT_EQ(test::read_file(dir + "/whole/" + f), test::read_file(dir + "/again/" + f)) << f;
  EXPECT_NE(test::read_file(dir + "/whole/summary.json").find("\"model\": \"ns3\""), std::string::npos);
}

// What ns3 cannot carry is refused before anything runs, by run and by validate alike.
TEST(PacketRuns, WhatNs3CannotCarryIsRefusedNamingTheKey) {
  const std::string dir = test::temp_dir("packet-refused");
  test::write_file(dir + "/s.yaml", run_scenario(dir, "fedavg"));
  const std::string xml = std::string(test::source_dir()) + "/platforms/example_star.xml";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--set platform.xml=" + xml, "timing.network"},
      {"--set faults.offline_probability=0.1", "timing.network"},
      {"--set timing.cohorts=true", "timing.cohorts"},
      {"--set platform.backbone.bandwidth_bps=1e8", "platform.backbone.bandwidth_bps"},
      {"--set timing.tcp.initial_cwnd_segments=0", "timing.tcp.initial_cwnd_segments"},
      {"--set timing.tcp.min_rto_s=-1", "timing.tcp.min_rto_s"},
      {"--set timing.tcp.receive_buffer_bytes=8388608", "timing.tcp.receive_buffer_bytes"},
      {"--set timing.tcp.congestion=bbr", "timing.tcp.congestion"},
  };
  for (const auto& [set, key] : cases)
    for (const char* command : {"validate ", "run "}) {
      const auto r = test::run_fedgrid(command + dir + "/s.yaml " + set + " --out " + dir + "/out");
      EXPECT_EQ(r.exit_code, 2) << command << set << "\n" << r.output;
      EXPECT_NE(r.output.find(key), std::string::npos) << command << set << ": no '" << key << "' in\n" << r.output;
    }
}

}  // namespace
}  // namespace fedgrid

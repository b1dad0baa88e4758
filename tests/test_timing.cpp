// Simulated time against numbers computed independently, under network: cm02 (latency +
// size / bandwidth, no TCP factors). SimGrid allows one engine per process, and ctest runs
// every test in its own process; run directly, the second engine test of a process skips.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "algorithms/registry.hpp"
#include "sim/engine/arrivals.hpp"
#include "sim/engine/federation.hpp"
#include "sim/jobs/training/plain_training.hpp"
#include "sim/engine/run.hpp"
#include "sim/scenario/scenario.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

// Round numbers that make the arithmetic easy to follow: bandwidths in bit/s.
constexpr double kServerBps = 80e6, kHospUpBps = 8e6, kHospDownBps = 16e6;
constexpr double kServerLat = 0.001, kHospLat = 0.010;
// A server link far faster than all hospital links together, so it never constrains them. Not
// faster still: SimGrid's max-min solver works to a fixed precision, and capacities 10^5
// apart made it drop the slower link's constraint from concurrent flows (seen here).
constexpr double kFastBps = 1e9;
constexpr double kHospSpeed = 1e9, kServerSpeed = 4e9;

std::string tiers_yaml(double server_bps) {
  auto tier = [](const char* name, double speed, double up, double down, double lat) {
    return std::string("  ") + name + ": {speed_flops: " + std::to_string(speed) + ", cores: 1, memory_gb: 1, uplink_bps: " +
           std::to_string(up) + ", downlink_bps: " + std::to_string(down) + ", latency_s: " + std::to_string(lat) +
           ", power_idle_w: 10, power_max_w: 20}\n";
  };
  return "tiers:\n" + tier("hosp", kHospSpeed, kHospUpBps, kHospDownBps, kHospLat) +
         tier("srv", kServerSpeed, server_bps, server_bps, kServerLat);
}

// One engine per process: a second call in the same process skips the test.
bool claim_engine() {
  static bool used = false;
  if (used) return false;
  used = true;
  return true;
}

struct Capture : Observer {
  std::vector<Activity> activities;
  std::vector<RoundReport> rounds;
  void on_activity(const Activity& a) override { activities.push_back(a); }
  void on_round(const RoundReport& r) override { rounds.push_back(r); }
};

Scenario timing_scenario(int hospitals, double server_bps, const std::string& algorithm = "fedavg") {
  const std::string dir = test::temp_dir("timing");
  test::write_file(dir + "/tiers.yaml", tiers_yaml(server_bps));
  return load_scenario_text(test::tiny_scenario("timing"), "<timing test>",
                            {"platform.tiers=" + dir + "/tiers.yaml", "platform.server.tier=srv",
                             "platform.hospitals=[{count: " + std::to_string(hospitals) + ", tier: hosp}]",
                             "timing.network=cm02", "platform.backbone.bandwidth_bps=10e9", "algorithm.name=" + algorithm, "stop.rounds=1",
                             "output.dir=" + dir + "/out"});
}

// Route server -> hospital: server uplink, backbone (100 Gbit/s default, no latency), hospital downlink.
double download_s(int64_t bytes) { return kServerLat + kHospLat + double(bytes) * 8 / kHospDownBps; }
double upload_s(int64_t bytes) { return kHospLat + kServerLat + double(bytes) * 8 / kHospUpBps; }

#define REQUIRE_ENGINE() \
  if (!claim_engine()) GTEST_SKIP() << "one SimGrid engine per process: run through ctest"

TEST(Timing, OneTransferIsLatencyPlusSizeOverBandwidth) {
  REQUIRE_ENGINE();
  Scenario s = timing_scenario(1, kFastBps);
  double elapsed = -1;
  int64_t bytes = 0;
  run_scenario(s, {false}, [&](Federation& fed) {
    Model m = fed.init_model();
    bytes = m.payload_bytes();
    const double t0 = fed.now();
    (void)fed.send(fed.server(), *fed.hospitals()[0], m);
    elapsed = fed.now() - t0;
  });
  // mlp on 1x12x12, 10 classes: (144*200+200) + (200*200+200) + (200*10+10) = 71,210 values.
  EXPECT_EQ(bytes, 71210 * 4 + 64);
  EXPECT_NEAR(elapsed, 0.001 + 0.010 + (71210.0 * 4 + 64) * 8 / 16e6, 1e-9);
}

TEST(Timing, ComputeIsFlopsOverSpeed) {
  REQUIRE_ENGINE();
  Scenario s = timing_scenario(1, kFastBps);
  Capture cap;
  int64_t samples = 0;
  double elapsed = -1;
  run_scenario(s, {false, false, {&cap}}, [&](Federation& fed) {
    Hospital& h = *fed.hospitals()[0];
    samples = h.train_samples();
    const double t0 = fed.now();
    h.train(fed.init_model(), PlainTraining(2));
    elapsed = fed.now() - t0;
  });
  // Forward FLOPs per sample, 2 per multiply-add: 2*(144*200 + 200*200 + 200*10) = 141,600;
  // training counts backward as twice the forward: 424,800 per sample and epoch.
  const double flops = 424800.0 * double(samples) * 2;
  EXPECT_GT(samples, 0);
  EXPECT_NEAR(elapsed, flops / kHospSpeed, 1e-12);
  ASSERT_EQ(cap.activities.size(), 1u);
  EXPECT_EQ(cap.activities[0].kind, "compute");
  EXPECT_DOUBLE_EQ(cap.activities[0].flops, flops);
}

TEST(Timing, TwoActivitiesOnOneHostShareItsSpeed) {
  REQUIRE_ENGINE();
  Scenario s = timing_scenario(1, kFastBps);
  double alone = -1, together = -1;
  run_scenario(s, {false}, [&](Federation& fed) {
    Hospital* h = fed.hospitals()[0];
    Model m = fed.init_model();
    double t0 = fed.now();
    h->train(m, PlainTraining(1));
    alone = fed.now() - t0;
    t0 = fed.now();
    fed.parallel(std::vector<Hospital*>{h, h}, [&](Hospital& x) { return x.train(m, PlainTraining(1)).samples; });
    together = fed.now() - t0;
  });
  EXPECT_GT(alone, 0);
  EXPECT_NEAR(together, 2 * alone, 1e-12);
}

TEST(Timing, TwoUploadsSharingTheServerLinkTakeTwiceAsLong) {
  REQUIRE_ENGINE();
  // The server's link (1 Mbit/s) is the bottleneck of every upload (hospital uplink 8 Mbit/s).
  Scenario s = timing_scenario(2, 1e6);
  double one = -1, two = -1;
  int64_t bytes = 0;
  run_scenario(s, {false}, [&](Federation& fed) {
    Model m = fed.init_model();
    bytes = m.payload_bytes();
    auto hs = fed.hospitals();
    double t0 = fed.now();
    (void)fed.send(*hs[0], fed.server(), m);
    one = fed.now() - t0;
    t0 = fed.now();
    fed.parallel(hs, [&](Hospital& h) {
      (void)fed.send(h, fed.server(), m);
      return 0;
    });
    two = fed.now() - t0;
  });
  const double latency = kHospLat + kServerLat, transfer = double(bytes) * 8 / 1e6;
  EXPECT_NEAR(one, latency + transfer, 1e-9);
  EXPECT_NEAR(two, latency + 2 * transfer, 1e-9);
}

TEST(Timing, ArrivalsHandResultsOverInCompletionOrder) {
  REQUIRE_ENGINE();
  Scenario s = timing_scenario(3, kFastBps);
  std::vector<std::pair<int64_t, double>> seen;  // (samples, time the server got the result)
  std::vector<int64_t> samples;
  run_scenario(s, {false}, [&](Federation& fed) {
    for (auto* h : fed.hospitals()) samples.push_back(h->train_samples());
    Model m = fed.init_model();
    fed.done(1);
    Arrivals<Update> jobs(fed.job_site());
    for (auto* h : fed.hospitals()) jobs.start(*h, [&m, h] { return h->train(m, PlainTraining(1)); });
    while (auto a = jobs.next()) seen.push_back({a->result->samples, fed.now()});
  });
  // Same speed everywhere: the smallest hospital finishes first, each result arrives the
  // moment its training ends (flops / speed).
  std::sort(samples.begin(), samples.end());
  ASSERT_EQ(seen.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(seen[i].first, samples[i]);
    EXPECT_NEAR(seen[i].second, 424800.0 * double(samples[i]) / kHospSpeed, 1e-12);
  }
}

TEST(Timing, CohortsHandEveryMemberItsResult) {
  REQUIRE_ENGINE();
  Scenario s = timing_scenario(1, kFastBps);
  s = load_scenario_text(test::tiny_scenario("cohort-timing"), "<cohort test>",
                         {"platform.tiers=" + s.platform.tiers_file, "platform.server.tier=srv",
                          "platform.hospitals=[{count: 3, tier: hosp}, {count: 2, tier: hosp, name: fast, speed_flops: 2e9}]",
                          "timing.network=cm02", "training.mode=timing-only", "timing.cohorts=true",
                          "data.samples_per_hospital=100", "output.dir=" + s.output.dir});
  std::vector<int> got;
  double ended = -1;
  run_scenario(s, {false}, [&](Federation& fed) {
    Model m = fed.init_model();
    for (const auto& u : fed.parallel(fed.hospitals(), [&](Hospital& h) { return h.train(m, PlainTraining(1)); }))
      got.push_back(u.hospital);
    ended = fed.now();
  });
  // Two cohorts (ids 0-2, and the fast ids 3-4), one representative each: every member gets
  // an update naming itself, in the order asked, once the slower cohort has trained (mlp on
  // 12x12: 424,800 training FLOPs per sample).
  EXPECT_EQ(got, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_NEAR(ended, 424800.0 * 100 / kHospSpeed, 1e-12);
}

// Per-hospital durations of a round, from the activities: download + train + upload.
std::map<std::string, double> per_hospital_chain(const std::vector<Activity>& acts) {
  std::map<std::string, double> chain;
  for (const auto& a : acts) {
    if (a.kind == "server") continue;
    const std::string hospital = a.kind == "send" && a.host == "server" ? a.peer : a.host;
    chain[hospital] += a.end_s - a.start_s;
  }
  return chain;
}

TEST(Timing, FedSeqRoundIsTheSumOfItsHospitals) {
  REQUIRE_ENGINE();
  Scenario s = timing_scenario(3, kFastBps, "fedseq");
  Capture cap;
  std::vector<int64_t> samples;
  int64_t bytes = 0;
  run_scenario(s, {false, false, {&cap}}, [&](Federation& fed) {
    for (auto* h : fed.hospitals()) samples.push_back(h->train_samples());
    bytes = fed.init_model().payload_bytes();
    algorithms::find_algorithm("fedseq")->make()->run(fed);
  });
  double expected = 0;
  for (int64_t n : samples) expected += download_s(bytes) + 424800.0 * double(n) / kHospSpeed + upload_s(bytes);
  ASSERT_EQ(cap.rounds.size(), 1u);
  EXPECT_NEAR(cap.rounds[0].sim_time_s, expected, 1e-9);
}

TEST(Timing, FedAvgRoundIsTheSlowestHospitalPlusAggregation) {
  REQUIRE_ENGINE();
  // Server link far faster than the sum of the hospital links: no link is shared.
  Scenario s = timing_scenario(3, kFastBps);
  Capture cap;
  std::vector<int64_t> samples;
  int64_t bytes = 0, values = 0;
  run_scenario(s, {false, false, {&cap}}, [&](Federation& fed) {
    for (auto* h : fed.hospitals()) samples.push_back(h->train_samples());
    bytes = fed.init_model().payload_bytes();
    values = int64_t(fed.init_model().weights.size());
    algorithms::find_algorithm("fedavg")->make()->run(fed);
  });
  double slowest = 0;
  for (int64_t n : samples)
    slowest = std::max(slowest, download_s(bytes) + 424800.0 * double(n) / kHospSpeed + upload_s(bytes));
  const double aggregation = 2.0 * double(values) * 3 / kServerSpeed;
  ASSERT_EQ(cap.rounds.size(), 1u);
  EXPECT_NEAR(cap.rounds[0].sim_time_s, slowest + aggregation, 1e-9);
  // The recorded per-hospital chains agree with the independent figure.
  auto chains = per_hospital_chain(cap.activities);
  double longest = 0;
  for (auto& [h, d] : chains) longest = std::max(longest, d);
  EXPECT_NEAR(longest, slowest, 1e-9);
}

}  // namespace
}  // namespace fedgrid

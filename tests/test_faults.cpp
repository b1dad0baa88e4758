// Faults in the simulated world (sim/engine/faults.*, Federation's guards): each fault kind on a
// timing-only cm02 federation whose times are worked out by hand; the status column and the
// loss counters; every shipped algorithm completing under faults; the same bytes run to run and
// across worker counts; a resumed run meeting the same faults; bad input refused with file,
// line and key.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "data/rng.hpp"
#include "sim/core/seed_streams.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

using test::cells;
using test::lines;
using test::read_file;

// Hospitals at 1 GFLOP/s on 8 Mbit/s up, 16 Mbit/s down, 10 ms; server at 4 GFLOP/s on 1 Gbit/s
// links, 1 ms (its links and the 10 Gbit/s backbone never limit). mlp on synthetic 28x28 data:
// 199,210 values, 796,904 bytes a message; 100 samples a job: 119,280,000 FLOPs, 0.11928 s.
// Download 0.011 + 796,904 x 8 / 16e6 = 0.409452 s; upload 0.011 + 796,904 x 8 / 8e6 = 0.807904 s.
constexpr double kDown = 0.409452, kTrain = 0.11928, kUp = 0.807904;
constexpr int64_t kBytes = 796904;

std::string clock_dir(const std::string& tag, const std::string& hospitals, const std::string& extra,
                      const std::map<std::string, std::string>& files = {}) {
  const std::string dir = test::temp_dir(tag);
  test::write_file(dir + "/tiers.yaml",
                   "tiers:\n"
                   "  hosp: {speed_flops: 1e9, cores: 1, memory_gb: 1, uplink_bps: 8e6, downlink_bps: 16e6, "
                   "latency_s: 0.010, power_idle_w: 10, power_max_w: 20}\n"
                   "  srv: {speed_flops: 4e9, cores: 1, memory_gb: 1, uplink_bps: 1e9, downlink_bps: 1e9, "
                   "latency_s: 0.001, power_idle_w: 10, power_max_w: 20}\n");
  for (const auto& [name, text] : files) test::write_file(dir + "/" + name, text);
  test::write_file(dir + "/s.yaml", "name: faults\nseed: 1\n"
                                    "platform:\n  tiers: tiers.yaml\n  server: {tier: srv}\n"
                                    "  backbone: {bandwidth_bps: 10e9}\n  hospitals: " +
                                        hospitals +
                                        "\ndata: {dataset: synthetic, samples_per_hospital: 100}\n"
                                        "model: {arch: mlp}\ntraining: {mode: timing-only}\n"
                                        "timing: {network: cm02}\noutput: {trace: false}\n" +
                                        extra);
  return dir;
}

// Runs the scenario of `dir` into dir/out, replacing an earlier call's (exit code 0 expected).
std::string run_dir(const std::string& dir, const std::string& sets = "") {
  auto r = test::run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/out --overwrite " + sets);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return dir + "/out";
}

// hospitals.csv as maps from column name to cell, one per row.
std::vector<std::map<std::string, std::string>> hospital_rows(const std::string& out) {
  const auto rows = lines(read_file(out + "/hospitals.csv"));
  std::vector<std::map<std::string, std::string>> table;
  if (rows.empty()) return table;
  const auto header = cells(rows[0]);
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto c = cells(rows[i]);
    std::map<std::string, std::string> row;
    for (size_t k = 0; k < header.size() && k < c.size(); ++k) row[header[k]] = c[k];
    table.push_back(row);
  }
  return table;
}

const std::map<std::string, std::string>& row_of(const std::vector<std::map<std::string, std::string>>& rows,
                                                  int round, const std::string& hospital) {
  for (const auto& r : rows)
    if (r.at("round") == std::to_string(round) && r.at("hospital") == hospital) return r;
  static const std::map<std::string, std::string> none;
  ADD_FAILURE() << "no row for round " << round << ", " << hospital;
  return none;
}

std::vector<double> round_times(const std::string& out) {
  std::vector<double> t;
  const auto rows = lines(read_file(out + "/rounds.csv"));
  for (size_t i = 1; i < rows.size(); ++i) t.push_back(std::stod(cells(rows[i])[1]));
  return t;
}

nlohmann::json faults_of(const std::string& out) { return nlohmann::json::parse(read_file(out + "/summary.json"))["faults"]; }

// Server work: weighted averaging, 2 FLOPs per value per update, at 4 GFLOP/s.
double average_s(int updates) { return 2.0 * 199210 * updates / 4e9; }

TEST(Faults, ACrashCutsTheDownloadAtItsInstant) {
  const auto out = run_dir(clock_dir("faults-crash-down", "[{count: 3, tier: hosp}]",
                                     "algorithm: {name: fedavg}\nstop: {rounds: 2}\nfaults: {crash_trace: crashes.csv}\n",
                                     {{"crashes.csv", "hospital,crash_at_s,recover_at_s\nhosp-2,0.2,1.0\n"}}));
  const auto rows = hospital_rows(out);
  // At 0.2 s the download has run 0.2 - 0.011 s of latency-free transfer at 2 MB/s: 378,000 bytes.
  EXPECT_EQ(row_of(rows, 1, "hosp-2").at("status"), "crashed");
  EXPECT_EQ(row_of(rows, 1, "hosp-2").at("bytes_down"), "378000");
  EXPECT_EQ(row_of(rows, 1, "hosp-2").at("comm_s"), "0.200000000");
  EXPECT_EQ(row_of(rows, 1, "hosp-1").at("status"), "ok");
  // Back at 1.0, before round 2 begins (1.3368 s): it takes part again.
  EXPECT_EQ(row_of(rows, 2, "hosp-2").at("status"), "ok");
  const auto t = round_times(out);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_NEAR(t[0], kDown + kTrain + kUp + average_s(2), 1e-9);
  const auto f = faults_of(out);
  EXPECT_EQ(f["updates_lost"], 1);
  EXPECT_EQ(f["hospitals_lost"], 1);
  EXPECT_EQ(f["bytes_wasted"], 378000);
  EXPECT_NEAR(f["sim_time_lost_s"].get<double>(), 0.2, 1e-12);
  // events.csv has the cut transfer with the bytes it moved.
  EXPECT_NE(read_file(out + "/events.csv").find("0.000000000,0.200000000,server,send,hosp-2,378000,0,1"),
            std::string::npos);
}

TEST(Faults, ACrashDuringTrainingLosesTheJobAndAHostThatStaysDownIsOffline) {
  const auto out = run_dir(clock_dir("faults-crash-train", "[{count: 3, tier: hosp}]",
                                     "algorithm: {name: fedavg}\nstop: {rounds: 3}\nfaults: {crash_trace: crashes.csv}\n",
                                     {{"crashes.csv", "hospital,crash_at_s,recover_at_s\nhosp-2,0.45,\n"}}));
  const auto rows = hospital_rows(out);
  const auto& r1 = row_of(rows, 1, "hosp-2");
  EXPECT_EQ(r1.at("status"), "crashed");
  EXPECT_EQ(r1.at("bytes_down"), std::to_string(kBytes));
  EXPECT_EQ(r1.at("compute_s"), "0.040548000");  // 0.45 - 0.409452
  EXPECT_EQ(r1.at("bytes_up"), "0");
  for (int r : {2, 3}) {
    EXPECT_EQ(row_of(rows, r, "hosp-2").at("status"), "offline");
    EXPECT_EQ(row_of(rows, r, "hosp-2").at("bytes_down"), "0");
  }
  // Its partial compute in events.csv: 0.040548 s of 1 GFLOP/s.
  EXPECT_NE(read_file(out + "/events.csv").find("0.409452000,0.450000000,hosp-2,compute,,0,40548000,1"),
            std::string::npos);
  const auto t = round_times(out);
  ASSERT_EQ(t.size(), 3u);
  const double round_s = kDown + kTrain + kUp + average_s(2);
  for (int r = 0; r < 3; ++r) EXPECT_NEAR(t[size_t(r)], (r + 1) * round_s, 1e-9);
  // Energy of round 1 (every host 10 W idle, 20 W computing): hosp-1, hosp-3 and the server
  // the whole round plus their compute; hosp-2 until its crash (0.040548 s of it computing),
  // then its wattage_off, 0 W, while down.
  const double energy = 10 * round_s * 3 + 10 * 2 * kTrain + 10 * average_s(2) + 10 * 0.45 + 10 * 0.040548;
  EXPECT_NEAR(std::stod(cells(lines(read_file(out + "/rounds.csv"))[1])[8]), energy, 1e-3);
  const auto f = faults_of(out);
  EXPECT_EQ(f["updates_lost"], 3);
  EXPECT_EQ(f["hospitals_lost"], 1);
  EXPECT_EQ(f["bytes_wasted"], kBytes);
  EXPECT_NEAR(f["sim_time_lost_s"].get<double>(), 0.45, 1e-12);
}

TEST(Faults, AnAvailabilityTraceCutsTheUploadAndKeepsTheHospitalAway) {
  // hosp-3 online in [0, 1) and from 2 s on. Round 1: cut at 1.0 during its upload (started at
  // 0.528732, 11 ms latency, then 1 MB/s): 460,268 bytes up. Round 2 begins at 1.3368: offline.
  // Round 3 begins at 2.6737: online again.
  const auto out = run_dir(clock_dir("faults-trace", "[{count: 3, tier: hosp}]",
                                     "algorithm: {name: fedavg}\nstop: {rounds: 3}\n"
                                     "faults: {availability_trace: online.csv}\n",
                                     {{"online.csv", "hospital,online_from_s,online_until_s\n"
                                                     "hosp-3,0,1.0\nhosp-3,2.0,1000\n"}}));
  const auto rows = hospital_rows(out);
  EXPECT_EQ(row_of(rows, 1, "hosp-3").at("status"), "offline");
  EXPECT_EQ(row_of(rows, 1, "hosp-3").at("bytes_up"), "460268");
  EXPECT_EQ(row_of(rows, 2, "hosp-3").at("status"), "offline");
  EXPECT_EQ(row_of(rows, 2, "hosp-3").at("bytes_down"), "0");
  EXPECT_EQ(row_of(rows, 3, "hosp-3").at("status"), "ok");
  const auto f = faults_of(out);
  EXPECT_EQ(f["updates_lost"], 2);
  EXPECT_EQ(f["hospitals_lost"], 0);  // never crashed
  EXPECT_EQ(f["bytes_wasted"], kBytes + 460268);
}

TEST(Faults, OfflineDrawsFollowTheSeedStream) {
  const auto dir = clock_dir("faults-offline", "[{count: 6, tier: hosp}]",
                             "algorithm: {name: fedavg}\nstop: {rounds: 4}\nfaults: {offline_probability: 0.4}\n");
  const auto out = run_dir(dir);
  const auto rows = hospital_rows(out);
  int offline = 0;
  for (int r = 1; r <= 4; ++r)
    for (int h = 0; h < 6; ++h) {
      // The documented draw: uniform of mix_seed(seed, kOffline, hospital + 1, round) below p.
      const bool drawn =
          Rng(mix_seed(1, seed_streams::kOffline, uint64_t(h + 1), uint64_t(r))).uniform() < 0.4;
      const auto& row = row_of(rows, r, "hosp-" + std::to_string(h + 1));
      EXPECT_EQ(row.at("status"), drawn ? "offline" : "ok") << "round " << r << " hosp-" << h + 1;
      offline += drawn;
    }
  EXPECT_GT(offline, 0);
  EXPECT_EQ(faults_of(out)["updates_lost"], offline);
  EXPECT_EQ(faults_of(out)["bytes_wasted"], 0);  // an offline hospital is never contacted
  // The same bytes on a second run.
  const std::string first = read_file(out + "/hospitals.csv");
  run_dir(dir);
  EXPECT_EQ(read_file(out + "/hospitals.csv"), first);
}

TEST(Faults, ADeadlineDropsTheLateUpdate) {
  // slow-1 trains at 0.1 GFLOP/s (1.1928 s): at the 1.5 s deadline it has trained
  // 1.5 - 0.409452 s and is cut; the other two reported at 1.336636 s. The server waits until
  // the deadline, then averages the two.
  const auto out = run_dir(clock_dir("faults-deadline", "[{count: 2, tier: hosp}, {count: 1, tier: hosp, name: slow, speed_flops: 0.1e9}]",
                                     "algorithm: {name: fedavg}\nstop: {rounds: 1}\nfaults: {deadline_s: 1.5}\n"));
  const auto rows = hospital_rows(out);
  EXPECT_EQ(row_of(rows, 1, "slow-1").at("status"), "late");
  EXPECT_EQ(row_of(rows, 1, "slow-1").at("compute_s"), "1.090548000");
  EXPECT_EQ(row_of(rows, 1, "hosp-1").at("status"), "ok");
  const auto t = round_times(out);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_NEAR(t[0], 1.5 + average_s(2), 1e-9);
  EXPECT_NEAR(faults_of(out)["sim_time_lost_s"].get<double>(), 1.5, 1e-12);
}

TEST(Faults, OverSelectionKeepsTheFirstToReportAndCutsTheRest) {
  // algorithm.fraction 0.5 of 2 hospitals wants one; over_selection 1 asks both. hosp-1 reports
  // at 1.336636 s; slow-1 (0.1 GFLOP/s) is then training and is cut: late.
  const auto out = run_dir(clock_dir("faults-over", "[{count: 1, tier: hosp}, {count: 1, tier: hosp, name: slow, speed_flops: 0.1e9}]",
                                     "algorithm: {name: fedavg, fraction: 0.5}\nstop: {rounds: 1}\n"
                                     "faults: {over_selection: 1}\n"));
  const auto rows = hospital_rows(out);
  EXPECT_EQ(row_of(rows, 1, "hosp-1").at("status"), "ok");
  EXPECT_EQ(row_of(rows, 1, "slow-1").at("status"), "late");
  EXPECT_EQ(row_of(rows, 1, "slow-1").at("compute_s"), "0.927184000");  // 1.336636 - 0.409452
  const auto t = round_times(out);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_NEAR(t[0], kDown + kTrain + kUp + average_s(1), 1e-9);
}

TEST(Faults, OverSelectionBreaksATieByHospitalId) {
  // Two identical hospitals report at the same instant; one is wanted: hosp-1 is kept, hosp-2
  // is late with both its transfers wasted.
  const auto out = run_dir(clock_dir("faults-tie", "[{count: 2, tier: hosp}]",
                                     "algorithm: {name: fedavg, fraction: 0.5}\nstop: {rounds: 1}\n"
                                     "faults: {over_selection: 1}\n"));
  const auto rows = hospital_rows(out);
  EXPECT_EQ(row_of(rows, 1, "hosp-1").at("status"), "ok");
  EXPECT_EQ(row_of(rows, 1, "hosp-2").at("status"), "late");
  EXPECT_EQ(faults_of(out)["bytes_wasted"], 2 * kBytes);
}

TEST(Faults, ALinkTraceSlowsTheTransfersAfterItsStep) {
  // From 0.5 s hosp-1's links run at half their bandwidth with 50 ms latency: its upload, from
  // 0.528732, takes 0.05 + 0.001 (the server's link) + 796,904 x 8 / 4e6 = 1.644808 s. hosp-2
  // is untouched.
  const auto out = run_dir(clock_dir("faults-link", "[{count: 2, tier: hosp}]",
                                     "algorithm: {name: fedavg}\nstop: {rounds: 1}\nfaults: {link_trace: links.csv}\n",
                                     {{"links.csv", "hospital,time_s,bandwidth_factor,latency_s\nhosp-1,0.5,0.5,0.05\n"}}));
  const auto events = read_file(out + "/events.csv");
  EXPECT_NE(events.find("0.528732000,2.173540000,hosp-1,send,server"), std::string::npos) << events;
  EXPECT_NE(events.find("0.528732000,1.336636000,hosp-2,send,server"), std::string::npos) << events;
  const auto rows = hospital_rows(out);
  EXPECT_EQ(row_of(rows, 1, "hosp-1").at("status"), "ok");  // slower, not lost
  EXPECT_EQ(faults_of(out)["updates_lost"], 0);
}

TEST(Faults, ARelaySkipsTheMissingHospital) {
  // FedSeq, fixed order: hosp-2 is down from 0.5 s on, so its turn (at 1.336636 s) finds it
  // offline; hosp-3 takes the model from the server at once.
  const auto out = run_dir(clock_dir("faults-relay", "[{count: 3, tier: hosp}]",
                                     "algorithm: {name: fedseq}\nstop: {rounds: 1}\nfaults: {crash_trace: crashes.csv}\n",
                                     {{"crashes.csv", "hospital,crash_at_s\nhosp-2,0.5\n"}}));
  const auto rows = hospital_rows(out);
  EXPECT_EQ(row_of(rows, 1, "hosp-2").at("status"), "offline");
  EXPECT_EQ(row_of(rows, 1, "hosp-3").at("status"), "ok");
  const auto t = round_times(out);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_NEAR(t[0], 2 * (kDown + kTrain + kUp), 1e-9);
}

TEST(Faults, AsynchronousJobsWaitForTheirHospitalAndLostOnesAreReplaced) {
  // FedAsync: hosp-2 crashes during its first job and is back at 3 s; its job is lost (no
  // update applied), another starts, and the run completes its rounds.
  const auto out = run_dir(clock_dir("faults-async", "[{count: 3, tier: hosp}]",
                                     "algorithm: {name: fedasync}\nstop: {rounds: 6}\nfaults: {crash_trace: crashes.csv}\n",
                                     {{"crashes.csv", "hospital,crash_at_s,recover_at_s\nhosp-2,0.45,3.0\n"}}));
  const auto summary = nlohmann::json::parse(read_file(out + "/summary.json"));
  EXPECT_EQ(summary["rounds"], 6);
  EXPECT_GE(summary["faults"]["updates_lost"].get<int>(), 1);
  bool crashed = false;
  for (const auto& r : hospital_rows(out)) crashed |= r.at("status") == "crashed";
  EXPECT_TRUE(crashed);
}

// ---------------------------------------------------------------- every algorithm, real training

std::string faulty_tiny(const std::string& name) {
  return test::tiny_scenario(name) +
         "output: {trace: false}\n"
         "faults: {offline_probability: 0.2, crash_rate_per_hour: 3000, recovery_s: 0.5}\n";
}

TEST(Faults, EveryShippedAlgorithmCompletesUnderFaults) {
  for (const auto& info : algorithms::registry()) {
    // Offline draws are per round: an asynchronous schedule, which has none, meets crashes only.
    std::string sets = " --set stop.rounds=2 --set output.trace=false --set faults.crash_rate_per_hour=3000"
                       " --set faults.recovery_s=0.5";
    if (!info.asynchronous) sets += " --set faults.offline_probability=0.2";
    const std::string dir = test::temp_dir("faults-all-" + info.name);
    test::write_file(dir + "/s.yaml", algorithms::smallest_scenario(info));
    auto r = test::run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/out" + sets);
    EXPECT_EQ(r.exit_code, 0) << info.name << "\n" << r.output;
    if (r.exit_code != 0) continue;
    const auto summary = nlohmann::json::parse(read_file(dir + "/out/summary.json"));
    EXPECT_TRUE(summary.contains("faults")) << info.name;
    EXPECT_EQ(summary["rounds"], 2) << info.name;
    // A fault takes what a hospital would have sent: nothing where no hospital trains (UniFed's
    // server-share control).
    bool hospitals_train = false;
    for (const auto& row : hospital_rows(dir + "/out")) hospitals_train |= row.count("epochs") && row.at("epochs") != "0";
    if (hospitals_train) EXPECT_GT(summary["faults"]["updates_lost"].get<int>(), 0) << info.name;
  }
}

TEST(Faults, AFaultRunIsByteIdenticalAcrossRunsAndWorkers) {
  const std::string yaml = faulty_tiny("faults-det");
  const auto one = test::run_ok("faults-det-1", yaml, "--set training.workers=1");
  const auto again = test::run_ok("faults-det-1b", yaml, "--set training.workers=1");
  const auto two = test::run_ok("faults-det-2", yaml, "--set training.workers=2");
  for (const char* f : {"rounds.csv", "hospitals.csv", "events.csv", "summary.json"}) {
    EXPECT_EQ(read_file(one + "/" + f), read_file(again + "/" + f)) << f;
    EXPECT_EQ(read_file(one + "/" + f), read_file(two + "/" + f)) << f;
  }
  EXPECT_GT(faults_of(one)["updates_lost"].get<int>(), 0);
}

// A run under every kind of fault, killed after round 3 and resumed from its round-2
// checkpoint, gives the uninterrupted run's bytes: the faults after the checkpoint are the same
// (draws are functions of the seed and the clock; the link steps replay while the resumed run
// sleeps to the checkpoint's instant), and the loss counters and statuses come back.
TEST(Faults, AResumedRunMeetsTheSameFaults) {
  for (const std::string algorithm : {"fedavg", "fedseq"}) {
    const std::string dir = test::temp_dir("faults-resume-" + algorithm);
    test::write_file(dir + "/links.csv", "hospital,time_s,bandwidth_factor,latency_s\nweak-*,1.0,0.3,0.05\n");
    test::write_file(dir + "/s.yaml", test::tiny_scenario("faults-resume") +
                                          "output: {trace: false, checkpoint_every: 2}\n"
                                          "faults: {offline_probability: 0.2, crash_rate_per_hour: 1500, recovery_s: 1, "
                                          "link_trace: links.csv}\n");
    const std::string sets = " --log-level warn --set stop.rounds=5 --set algorithm.name=" + algorithm;
    const auto whole = test::run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/whole" + sets);
    ASSERT_EQ(whole.exit_code, 0) << whole.output;
    const auto killed = test::run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/killed" + sets,
                                          "FEDGRID_CRASH_AT=round-reported:3");
    EXPECT_NE(killed.exit_code, 0) << killed.output;
    const auto resumed = test::run_fedgrid("resume " + dir + "/killed --log-level warn");
    ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
    for (const char* f : {"rounds.csv", "hospitals.csv", "events.csv", "summary.json"})
      EXPECT_EQ(read_file(dir + "/whole/" + f), read_file(dir + "/killed/" + f)) << algorithm << ": " << f;
    EXPECT_GT(faults_of(dir + "/whole")["updates_lost"].get<int>(), 0) << algorithm;
  }
}

// ---------------------------------------------------------------- bad input

TEST(Faults, BadTracesAndCombinationsAreInputErrors) {
  struct Case {
    std::string extra, file, text, expected;
  };
  const std::vector<Case> cases{
      {"faults: {crash_trace: missing.csv}", "", "", "missing.csv: key 'faults.crash_trace': trace file not found"},
      {"faults: {crash_trace: c.csv}", "c.csv", "hospital,crash_at_s\nhosp-1,1\nhosp-2,soon\n",
       "c.csv:3: key 'crash_at_s': expected a number, got 'soon'"},
      {"faults: {crash_trace: c.csv}", "c.csv", "hospital,crash_at_s\nnobody,1\n",
       "c.csv:2: key 'hospital': no hospital is named 'nobody'"},
      {"faults: {crash_trace: c.csv}", "c.csv", "hospital,when\nhosp-1,1\n", "c.csv:1: key 'crash_at_s': required column is missing"},
      {"faults: {crash_trace: c.csv}", "c.csv", "hospital,crash_at_s,recover_at_s\nhosp-1,5,4\n",
       "c.csv:2: key 'recover_at_s': must not be before crash_at_s"},
      {"faults: {availability_trace: a.csv}", "a.csv", "hospital,online_from_s,online_until_s\nhosp-*,3,2\n",
       "a.csv:2: key 'online_until_s': must be after online_from_s"},
      {"faults: {link_trace: l.csv}", "l.csv", "hospital,time_s,bandwidth_factor\nhosp-1,1,2\n",
       "l.csv:2: key 'bandwidth_factor': must be in (0, 1]"},
      {"faults: {offline_probability: 1.5}", "", "", "faults.offline_probability"},
      {"faults: {over_selection: 0.5}", "", "", "key 'faults.over_selection': the round already selects every hospital"},
      {"algorithm: {name: fedasync}\nfaults: {offline_probability: 0.1}", "", "",
       "key 'faults.offline_probability': an asynchronous schedule has no synchronous round"},
      {"faults: {deadline_s: 5}", "", "",
       "key 'timing.cohorts': cannot be combined with faults"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    const std::string dir = clock_dir("faults-bad-" + std::to_string(i), "[{count: 2, tier: hosp}]",
                                      "stop: {rounds: 1}\n" + c.extra + "\n",
                                      c.file.empty() ? std::map<std::string, std::string>{}
                                                     : std::map<std::string, std::string>{{c.file, c.text}});
    const std::string sets = c.expected.find("cohorts") != std::string::npos ? " --set timing.cohorts=true" : "";
    auto r = test::run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/out" + sets);
    EXPECT_EQ(r.exit_code, 2) << c.extra << "\n" << r.output;
    EXPECT_NE(r.output.find(c.expected), std::string::npos) << "missing '" << c.expected << "' in\n" << r.output;
    if (c.extra.find("_trace") != std::string::npos) {  // validate reads the trace files as run does
      auto v = test::run_fedgrid("validate " + dir + "/s.yaml");
      EXPECT_EQ(v.exit_code, 2) << v.output;
      EXPECT_NE(v.output.find(c.expected), std::string::npos) << "validate: missing '" << c.expected << "' in\n" << v.output;
    }
  }
  // FedSKD's pipelined schedule refuses faults.
  test::expect_run_input_error("faults-bad-skd", faulty_tiny("faults-bad-skd"),
                               "--set algorithm.name=fedskd --set algorithm.schedule=pipelined",
                               "key 'algorithm.schedule': the pipelined schedule cannot run under faults");
}

}  // namespace
}  // namespace fedgrid

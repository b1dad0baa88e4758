// Whole runs through the fedgrid binary: outputs, determinism, learning, stop conditions,
// every algorithm, every ready scenario.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "algorithms/registry.hpp"
#include "sim/core/seed_streams.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

using test::read_file;
using test::run_fedgrid;

using test::cells;
using test::lines;
using test::run_ok;

const char* kDeterministicFiles[] = {"rounds.csv", "hospitals.csv", "events.csv", "summary.json"};

TEST(Runs, OutputsFollowTheContract) {
  auto out = run_ok("contract", test::tiny_scenario("contract"));
  EXPECT_EQ(lines(read_file(out + "/rounds.csv"))[0],
            "round,sim_time_s,accuracy,loss,bytes_up,bytes_down,messages,participants,energy_j,"
            "f1_macro,sensitivity_macro,specificity_macro,epoch_transfers,acc_weak,acc_medium,acc_strong,"
            "global_acc_weak,global_acc_medium,global_acc_strong,tier_gap,hospital_acc_std,auc,local_test_acc,"
            "local_test_auc,global_test_acc,global_test_auc,bytes_peer");
  EXPECT_EQ(lines(read_file(out + "/hospitals.csv"))[0],
            "round,hospital,tier,samples,epochs,train_loss,accuracy,compute_s,comm_s,bytes_up,bytes_down,auc,"
            "global_test_acc,global_test_auc,staleness,status");
  EXPECT_EQ(lines(read_file(out + "/events.csv"))[0], "start_s,end_s,host,kind,peer,bytes,flops,round");
  EXPECT_EQ(lines(read_file(out + "/rounds.csv")).size(), 4u);     // header + 3 rounds
  EXPECT_EQ(lines(read_file(out + "/hospitals.csv")).size(), 19u);  // header + 3 x 6 hospitals

  auto summary = nlohmann::json::parse(read_file(out + "/summary.json"));
  for (const char* key : {"scenario", "algorithm", "seed", "rounds", "final_accuracy", "best_accuracy", "sim_time_s",
                          "time_to_target_s", "bytes_total", "energy_j", "versions"})
    EXPECT_TRUE(summary.contains(key)) << key;
  EXPECT_EQ(summary["rounds"], 3);
  // fedavg, 6 hospitals, 3 rounds: one model down and one up per hospital and round.
  // mlp 1x12x12: 71,210 values -> 284,904 bytes per message.
  EXPECT_EQ(summary["bytes_total"], int64_t(3) * 6 * 2 * 284904);
  EXPECT_EQ(summary["messages"], 36);
  EXPECT_EQ(summary["epoch_transfers"], 3 * 6);  // 1 local epoch x 6 hospitals x 3 rounds
  for (const char* key : {"final_f1_macro", "final_sensitivity_macro", "final_specificity_macro"})
    EXPECT_GT(summary[key].get<double>(), 0) << key;

  // Every row's sim time is when that round's model was ready: increasing.
  double last = 0;
  const auto rows = lines(read_file(out + "/rounds.csv"));
  for (size_t i = 1; i < rows.size(); ++i) {
    double t = std::stod(cells(rows[i])[1]);
    EXPECT_GT(t, last);
    last = t;
  }

  // trace.json: Chrome trace array, one named track per host.
  auto trace = nlohmann::json::parse(read_file(out + "/trace.json"));
  int tracks = 0, spans = 0;
  for (auto& e : trace) {
    tracks += e["ph"] == "M";
    spans += e["ph"] == "X";
  }
  EXPECT_EQ(tracks, 7);  // server + 6 hospitals
  EXPECT_EQ(spans, int(lines(read_file(out + "/events.csv")).size()) - 1);

  auto perf = nlohmann::json::parse(read_file(out + "/perf.json"));
  EXPECT_GT(perf["peak_rss_mib"].get<double>(), 0);
}

TEST(Runs, SameScenarioTwiceIsByteIdentical) {
  const std::string yaml = test::tiny_scenario("twice");
  auto a = run_ok("twice-a", yaml), b = run_ok("twice-b", yaml);
  for (const char* f : kDeterministicFiles) EXPECT_EQ(read_file(a + "/" + f), read_file(b + "/" + f)) << f;
}

TEST(Runs, ADifferentSeedGivesADifferentRun) {
  const std::string yaml = test::tiny_scenario("seed");
  auto a = run_ok("seed-a", yaml), b = run_ok("seed-b", yaml, "--set seed=8");
  EXPECT_NE(read_file(a + "/rounds.csv"), read_file(b + "/rounds.csv"));
}

TEST(Runs, FedAvgLearnsSyntheticDataInAFewRounds) {
  auto out = run_ok("learn", test::tiny_scenario("learn"), "--set stop.rounds=5");
  auto summary = nlohmann::json::parse(read_file(out + "/summary.json"));
  EXPECT_GE(summary["final_accuracy"].get<double>(), 0.9) << read_file(out + "/rounds.csv");
}

TEST(Runs, TargetAccuracyStopsTheRun) {
  auto out = run_ok("target", test::tiny_scenario("target"), "--set stop.rounds=30 --set stop.target_accuracy=0.6");
  auto s = nlohmann::json::parse(read_file(out + "/summary.json"));
  EXPECT_EQ(s["stop_reason"], "target_accuracy");
  EXPECT_LT(s["rounds"].get<int>(), 30);
  EXPECT_GE(s["final_accuracy"].get<double>(), 0.6);
  EXPECT_DOUBLE_EQ(s["time_to_target_s"].get<double>(), s["sim_time_s"].get<double>());
}

TEST(Runs, SimTimeBudgetStopsTheRun) {
  auto out = run_ok("budget", test::tiny_scenario("budget"), "--set stop.rounds=50 --set stop.sim_time_budget_s=2");
  auto s = nlohmann::json::parse(read_file(out + "/summary.json"));
  EXPECT_EQ(s["stop_reason"], "sim_time_budget");
  EXPECT_LT(s["rounds"].get<int>(), 50);
  // No round starts at or after the budget: the last one started before it.
  auto rows = lines(read_file(out + "/rounds.csv"));
  ASSERT_GE(rows.size(), 3u);
  EXPECT_LT(std::stod(cells(rows[rows.size() - 2])[1]), 2.0);
}

TEST(Runs, FractionSelectsASubsetEachRound) {
  auto out = run_ok("fraction", test::tiny_scenario("fraction"), "--set algorithm.fraction=0.5");
  const auto rows = lines(read_file(out + "/rounds.csv"));
  for (size_t i = 1; i < rows.size(); ++i) EXPECT_EQ(cells(rows[i])[7], "3") << rows[i];
}

// Every registered algorithm, on the smallest scenario its entry says exercises it. One test, not
// one per algorithm: each ctest entry starts the test binary (LibTorch, about a second) besides
// the fedgrid it runs.
TEST(EveryAlgorithm, RunsAndLearns) {
  for (const auto& info : algorithms::registry()) {
    SCOPED_TRACE(info.name);
    const auto out = run_ok("alg-" + info.name, algorithms::smallest_scenario(info));
    const std::string summary_file = out + "/summary.json";
    if (!std::filesystem::exists(summary_file)) continue;  // run_ok said why
    const auto s = nlohmann::json::parse(read_file(summary_file));
    EXPECT_EQ(s["algorithm"], info.name);
    EXPECT_GE(s["final_accuracy"].get<double>(), 0.5) << read_file(out + "/rounds.csv");
  }
}

// The random streams of one run must differ. The simulator's ids are kept out of the algorithms'
// at compile time (seed_streams::core_stream); an entry lists its own, which must be algorithms'
// ids and distinct (two algorithms may share one: they never run together).
TEST(Registry, EveryAlgorithmsSeedStreamsAreItsOwn) {
  size_t declared = 0;
  for (const auto& a : algorithms::registry()) {
    std::set<uint64_t> seen;
    for (const uint64_t id : a.seed_streams) {
      EXPECT_TRUE(seed_streams::is_algorithm_stream(id)) << a.name << ": stream " << id << " is the simulator's range";
      EXPECT_TRUE(seen.insert(id).second) << a.name << ": stream " << id << " listed twice";
      ++declared;
    }
  }
  EXPECT_GT(declared, 0u);
}

TEST(Runs, FedProxIsFedAvgPlusItsProximalTerm) {
  const std::string yaml = test::tiny_scenario("prox");
  auto fedavg = run_ok("prox-avg", yaml);
  auto mu0 = run_ok("prox-0", yaml, "--set algorithm.name=fedprox --set algorithm.mu=0");
  auto mu1 = run_ok("prox-1", yaml, "--set algorithm.name=fedprox --set algorithm.mu=1");
  EXPECT_EQ(read_file(fedavg + "/rounds.csv"), read_file(mu0 + "/rounds.csv"));  // mu = 0: the same arithmetic
  EXPECT_EQ(read_file(fedavg + "/events.csv"), read_file(mu1 + "/events.csv"));  // same messages and times
  EXPECT_NE(read_file(fedavg + "/rounds.csv"), read_file(mu1 + "/rounds.csv"));
}

TEST(Runs, LocalSendsNothingAndFedSeqRelaysOneModel) {
  auto local = run_ok("local-bytes", test::tiny_scenario("l"), "--set algorithm.name=local");
  EXPECT_EQ(nlohmann::json::parse(read_file(local + "/summary.json"))["bytes_total"], 0);
  auto seq = run_ok("seq-order", test::tiny_scenario("s"), "--set algorithm.name=fedseq --set stop.rounds=1");
  // The relay: hospital k's download starts only after hospital k-1's upload ended.
  auto ev = lines(read_file(seq + "/events.csv"));
  double last_upload_end = 0;
  for (size_t i = 1; i < ev.size(); ++i) {
    auto c = cells(ev[i]);
    if (c[3] != "send") continue;
    if (c[2] == "server") EXPECT_GE(std::stod(c[0]), last_upload_end - 1e-12) << ev[i];
    else last_upload_end = std::stod(c[1]);
  }
}

TEST(Runs, RosterAndXmlPlatformsRun) {
  auto roster = run_ok("roster", test::tiny_scenario("roster"),
                       "--set platform.hospitals=null --set platform.roster=platforms/example_roster.csv");
  EXPECT_NE(read_file(roster + "/hospitals.csv").find("university-hospital"), std::string::npos);
  auto xml = run_ok("xml", test::tiny_scenario("xml"),
                    "--set platform.hospitals=null --set platform.xml=platforms/example_star.xml");
  EXPECT_NE(read_file(xml + "/hospitals.csv").find("clinic-a"), std::string::npos);
}

// Slow (label "slow", 30 min limit): one process per shipped scenario, ~3 s each on a loaded
// 2-core machine, which brushed the fast tests' 5-minute limit at 93 scenarios.
TEST(SlowRuns, EveryReadyScenarioValidates) {
  std::vector<std::string> files;
  for (auto& entry : std::filesystem::recursive_directory_iterator(std::string(test::source_dir()) + "/scenarios")) {
    if (entry.path().extension() != ".yaml") continue;
    // Sweep files are not scenarios: Sweep.ShippedSweepsAreValidInEveryCell checks them.
    if (entry.path().parent_path().filename() == "sweeps") continue;
    files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  std::string all;
  for (const auto& f : files) all += " " + f;
  const auto r = run_fedgrid("validate" + all);  // one process: validate forks one child per file
  for (const auto& f : files) {
    // MedMNIST scenarios need the user's .npz files: without them, an error naming the file.
    const bool medmnist = std::filesystem::path(f).filename().string().rfind("medmnist_", 0) == 0;
    if (r.output.find(f + ": ok\n") != std::string::npos) continue;
    EXPECT_TRUE(medmnist) << f << " does not validate:\n" << r.output;
  }
  EXPECT_NE(r.exit_code, 1) << r.output;
  for (const auto& line : test::lines(r.output))
    if (line.find("error") != std::string::npos) EXPECT_NE(line.find(".npz: file not found"), std::string::npos) << line;
}

// The fedavg_vs_fedseq pair, run small: same federation, same data, two schedules.
TEST(Runs, FedAvgVsFedSeqShowsTheScheduleDifference) {
  const std::string base = std::string(test::source_dir()) + "/scenarios/fedavg_vs_fedseq/";
  const std::string small = "--set data.dataset=synthetic --set model.arch=mlp --set stop.rounds=2";
  const std::string dir = test::temp_dir("avgseq");
  ASSERT_EQ(run_fedgrid("run " + base + "fedavg.yaml --out " + dir + "/avg " + small).exit_code, 0);
  ASSERT_EQ(run_fedgrid("run " + base + "fedseq.yaml --out " + dir + "/seq " + small).exit_code, 0);
  auto avg = nlohmann::json::parse(read_file(dir + "/avg/summary.json"));
  auto seq = nlohmann::json::parse(read_file(dir + "/seq/summary.json"));
  EXPECT_EQ(avg["bytes_total"], seq["bytes_total"]);  // one model down and up per hospital and round
  EXPECT_GT(seq["sim_time_s"].get<double>(), 2 * avg["sim_time_s"].get<double>());  // the relay waits
}

// Slow (label "slow"): the built-in quickstart on Fashion-MNIST learns.
TEST(SlowQuickstart, PassesSeventyFivePercent) {
  const std::string dir = test::temp_dir("quickstart");
  // Two of its five rounds (0.78-0.79 on the CPUs of tests/golden/), to keep CI short: the test
  // guards that the built-in default runs and learns on any CPU; its bytes are the golden test's.
  auto r = run_fedgrid("run --set stop.rounds=2 --out " + dir + " --log-level warn");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto s = nlohmann::json::parse(read_file(dir + "/summary.json"));
  EXPECT_EQ(s["rounds"], 2);
  EXPECT_GT(s["final_accuracy"].get<double>(), 0.75) << read_file(dir + "/rounds.csv");
}

}  // namespace
}  // namespace fedgrid

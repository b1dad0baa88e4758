// CarPe-FL (Shin et al. 2026) in whole runs: what crosses the network in refresh rounds and in
// the others, the server's structure work, determinism, and the network it requires.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "algorithms/carpefl/structure.hpp"
#include "models/causal_layout.hpp"
#include "tests/carpefl_scenario.hpp"
#include "tests/helpers.hpp"

namespace fedgrid::carpefl {
namespace {

// Whole runs: three hospitals on small synthetic images, the carpefl network, refresh every 2.
std::string three(const std::string& extra = "") {
  return test::carpefl_three("carpefl-test", R"(training: {optimizer: adam, lr: 0.002, batch_size: 32}
algorithm: {name: carpefl, refresh_every: 2}
stop: {rounds: 4}
timing: {network: cm02}
output: {trace: false}
)" + extra);
}

TEST(CarpeflRuns, StatisticsTravelOnlyInRefreshRoundsAndModelsWithoutHeads) {
  const std::string dir = test::run_ok("carpefl-refresh", three());
  const models::ModelSpec spec{"carpefl", 1, 16, 16, 2};
  const auto parts = models::causal_net_parts(spec);
  int64_t shared = 0;
  for (const auto& r : parts.shared) shared += r.size;
  const int64_t model_bytes = shared * 4 + models::kPayloadHeaderBytes;
  const int64_t stats_bytes = statistics_bytes(16);
  EXPECT_EQ(stats_bytes, 64 + 8 + 4 * 16 + 2 * 16 * 17);
  // Heads, gate logits and the server-written buffers never travel as model values.
  EXPECT_EQ(shared, parts.total - parts.gate.size - parts.head.size - parts.backbone.size - parts.confidence.size -
                        parts.balance.size);
  std::map<int, int> stats_per_round;
  std::map<int, std::vector<double>> server_work;  // FLOPs of each server activity, by round
  for (const test::Event& e : test::events(dir)) {
    if (e.kind == "send" && e.peer == "server") {
      // Up: the statistics (refresh rounds) or the shared model; nothing else.
      if (e.bytes == stats_bytes) ++stats_per_round[e.round];
      else EXPECT_EQ(e.bytes, model_bytes) << "round " << e.round;
    } else if (e.kind == "send" && e.host == "server") {
      const bool refresh = e.round % 2 == 1;
      EXPECT_EQ(e.bytes, model_bytes + (refresh ? structure_bytes(16) : 0)) << "round " << e.round;
    } else if (e.kind == "server") {
      server_work[e.round].push_back(e.flops);
    }
  }
  EXPECT_EQ(stats_per_round, (std::map<int, int>{{1, 3}, {3, 3}}));
  // Refresh rounds: the structure (NOTEARS x 3, SHD, clusters, backbones), then the average;
  // other rounds: the average alone, the same FLOPs every round.
  ASSERT_EQ(server_work.size(), 4u);
  for (int round : {1, 3}) {
    ASSERT_EQ(server_work[round].size(), 2u) << round;
    EXPECT_GT(server_work[round][0], 10 * server_work[round][1]) << round;
    EXPECT_EQ(server_work[round][1], server_work[2][0]);
  }
  EXPECT_EQ(server_work[2].size(), 1u);
  EXPECT_EQ(server_work[4], server_work[2]);
}

TEST(CarpeflRuns, RefreshEveryRoundSendsStatisticsEveryRound) {
  const std::string dir = test::run_ok("carpefl-refresh-1", three(), "--set algorithm.refresh_every=1 --set stop.rounds=2");
  int stats = 0;
  for (const test::Event& e : test::events(dir)) stats += e.kind == "send" && e.peer == "server" && e.bytes == statistics_bytes(16);
  EXPECT_EQ(stats, 6);
}

TEST(CarpeflRuns, ByteIdenticalAcrossRunsAndWorkers) {
  const std::string one = test::run_ok("carpefl-det-1", three(), "--set training.workers=1");
  const std::string two = test::run_ok("carpefl-det-2", three(), "--set training.workers=2");
  for (const char* f : {"rounds.csv", "hospitals.csv", "events.csv", "summary.json"})
    EXPECT_EQ(test::read_file(one + "/" + f), test::read_file(two + "/" + f)) << f;
}

// output.site_metrics adds the site columns and final_site; without it the files keep their
// shape (other algorithms' outputs do not move).
TEST(CarpeflRuns, SiteFiguresOnlyWhenAskedFor) {
  const std::string with = test::run_ok("carpefl-site", three(), "--set stop.rounds=1 --set output.site_metrics=true");
  const auto rows = test::lines(test::read_file(with + "/rounds.csv"));
  ASSERT_EQ(rows.size(), 2u);
  const auto header = test::cells(rows[0]), values = test::cells(rows[1]);
  ASSERT_EQ(header.size(), values.size());
  std::map<std::string, double> site;
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i].rfind("site_", 0) == 0) site[header[i]] = std::stod(values[i]);
  ASSERT_EQ(site.size(), 6u);
  for (const char* figure : {"f1", "bacc", "auc"}) {
    const double mean = site[std::string("site_") + figure + "_mean"], worst = site[std::string("site_") + figure + "_worst"];
    EXPECT_LE(worst, mean) << figure;
    EXPECT_GE(worst, 0) << figure;
    EXPECT_LE(mean, 1) << figure;
  }
  EXPECT_NE(test::read_file(with + "/summary.json").find("\"final_site\""), std::string::npos);
  // hospitals.csv: each site's macro precision, recall, F1 and balanced accuracy; their mean and
  // minimum are rounds.csv's site figures.
  const auto hospital_rows = test::lines(test::read_file(with + "/hospitals.csv"));
  const auto hospital_header = test::cells(hospital_rows[0]);
  auto column = [&](const std::string& name) {
    return size_t(std::find(hospital_header.begin(), hospital_header.end(), name) - hospital_header.begin());
  };
  ASSERT_LT(column("balanced_acc"), hospital_header.size());
  std::vector<double> f1, bacc;
  for (size_t r = 1; r < hospital_rows.size(); ++r) {
    const auto row = test::cells(hospital_rows[r]);
    ASSERT_EQ(row.size(), hospital_header.size());
    for (const char* name : {"precision_macro", "recall_macro", "f1_macro"}) {
      EXPECT_GE(std::stod(row[column(name)]), 0) << name;
      EXPECT_LE(std::stod(row[column(name)]), 1) << name;
    }
    f1.push_back(std::stod(row[column("f1_macro")])), bacc.push_back(std::stod(row[column("balanced_acc")]));
  }
  ASSERT_EQ(f1.size(), 3u);
  EXPECT_NEAR((f1[0] + f1[1] + f1[2]) / 3, site["site_f1_mean"], 2e-6);
  EXPECT_NEAR(*std::min_element(f1.begin(), f1.end()), site["site_f1_worst"], 1e-6);
  EXPECT_NEAR((bacc[0] + bacc[1] + bacc[2]) / 3, site["site_bacc_mean"], 2e-6);
  const std::string without = test::run_ok("carpefl-nosite", three(), "--set stop.rounds=1");
  EXPECT_EQ(test::read_file(without + "/rounds.csv").find("site_"), std::string::npos);
  EXPECT_EQ(test::read_file(without + "/summary.json").find("final_site"), std::string::npos);
  EXPECT_EQ(test::read_file(without + "/hospitals.csv").find("f1_macro"), std::string::npos);
}

// The FedCSL-inspired baseline estimates the same graphs from the same statistics (round 1
// starts from the same model), so the server does the same NOTEARS work; the training differs,
// the structure not being injected.
TEST(CarpeflRuns, FedCslInspiredFitsTheSameGraphsAndTrainsWithoutThem) {
  const std::string carpe = test::run_ok("fedcsl-carpe", three(), "--set stop.rounds=1");
  const std::string csl = test::run_ok("fedcsl-csl", three(), "--set stop.rounds=1 --set algorithm.name=fedcsl_inspired");
  auto structure_flops = [](const std::string& dir) {
    for (const test::Event& e : test::events(dir))
      if (e.kind == "server") return e.flops;  // the first server activity: the structure
    return 0.0;
  };
  EXPECT_GT(structure_flops(carpe), 0);
  // The same NOTEARS fits; only the backbone step differs (one cluster, not carpefl's).
  EXPECT_NEAR(structure_flops(carpe), structure_flops(csl), 1e-6 * structure_flops(carpe));
  EXPECT_NE(test::read_file(carpe + "/hospitals.csv"), test::read_file(csl + "/hospitals.csv"));
}

TEST(CarpeflRuns, RefusesAnotherNetwork) {
  test::expect_run_input_error("carpefl-arch", three(), "--set model.arch=cnn", "model.arch");
}

}  // namespace
}  // namespace fedgrid::carpefl

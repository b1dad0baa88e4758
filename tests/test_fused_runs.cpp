// training.fuse in whole runs: fusion changes how fedgrid computes, never what the federation
// costs. A fused run's events.csv is the unfused run's byte for byte, and so are the simulated
// times, bytes, messages and energy of rounds.csv and hospitals.csv; accuracy moves only by
// float rounding; a fused run repeats byte for byte; work that cannot fuse runs alone.
#include <nlohmann/json.hpp>

#include <sstream>

#include "helpers.hpp"

namespace fedgrid {
namespace {

using test::read_file;
using test::run_fedgrid;

std::string run_tiny(const std::string& tag, const std::string& algorithm, const std::string& sets) {
  const std::string dir = test::temp_dir(tag);
  std::string yaml = test::tiny_scenario("fused");
  yaml.replace(yaml.find("model: {arch: mlp}"), 18, "model: {arch: cnn}");
  yaml.replace(yaml.find("height: 12, width: 12"), 21, "height: 16, width: 16");
  test::write_file(dir + "/s.yaml", yaml);
  const auto r = run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/out --set stop.rounds=2 --set algorithm.name=" +
                             algorithm + " " + sets);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return dir + "/out";
}

// The named columns of a CSV file, row by row, as text.
std::vector<std::string> columns(const std::string& path, const std::vector<std::string>& names) {
  std::istringstream in(read_file(path));
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  for (std::istringstream h(line); std::getline(h, line, ',');) header.push_back(line);
  std::vector<size_t> at;
  for (const auto& n : names) {
    const auto it = std::find(header.begin(), header.end(), n);
    EXPECT_NE(it, header.end()) << n << " in " << path;
    at.push_back(size_t(it - header.begin()));
  }
  std::vector<std::string> rows;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    for (std::istringstream r(line); std::getline(r, line, ',');) cells.push_back(line);
    std::string picked;
    for (size_t i : at) picked += (i < cells.size() ? cells[i] : "?") + ",";
    rows.push_back(picked);
  }
  return rows;
}

double perf(const std::string& out, const std::string& key) {
  return nlohmann::json::parse(read_file(out + "/perf.json")).at(key).get<double>();
}

void expect_same_costs(const std::string& unfused, const std::string& fused) {
  EXPECT_EQ(read_file(unfused + "/events.csv"), read_file(fused + "/events.csv"));
  const std::vector<std::string> round_costs{"round", "sim_time_s", "bytes_up", "bytes_down", "messages",
                                             "participants", "energy_j"};
  EXPECT_EQ(columns(unfused + "/rounds.csv", round_costs), columns(fused + "/rounds.csv", round_costs));
  const std::vector<std::string> hospital_costs{"round", "hospital", "samples", "epochs", "compute_s", "comm_s",
                                                "bytes_up", "bytes_down"};
  EXPECT_EQ(columns(unfused + "/hospitals.csv", hospital_costs), columns(fused + "/hospitals.csv", hospital_costs));
  const auto a = columns(unfused + "/rounds.csv", {"accuracy"}), b = columns(fused + "/rounds.csv", {"accuracy"});
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(std::stod(a[i]), std::stod(b[i]), 0.01) << "round " << i + 1;
}

TEST(FusedRuns, FedAvgCostsTheSameFusedAndRepeatsByteForByte) {
  const auto unfused = run_tiny("fuse-off", "fedavg", "--set training.fuse=off");
  const auto fused = run_tiny("fuse-4", "fedavg", "--set training.fuse=4");
  expect_same_costs(unfused, fused);
  EXPECT_EQ(perf(unfused, "training_jobs_fused"), 0);
  EXPECT_GT(perf(fused, "training_jobs_fused"), 0);  // it did fuse
  const auto again = run_tiny("fuse-4-again", "fedavg", "--set training.fuse=4 --set training.workers=1");
  for (const char* f : {"rounds.csv", "hospitals.csv", "events.csv"})
    EXPECT_EQ(read_file(fused + "/" + f), read_file(again + "/" + f)) << f;
}

TEST(FusedRuns, FedProxFuses) {
  const auto unfused = run_tiny("prox-off", "fedprox", "--set training.fuse=off");
  const auto fused = run_tiny("prox-6", "fedprox", "--set training.fuse=6");
  expect_same_costs(unfused, fused);
  EXPECT_GT(perf(fused, "training_jobs_fused"), 0);
}

TEST(FusedRuns, FedOptFuses) {
  const auto unfused = run_tiny("fedadam-off", "fedadam", "--set training.fuse=off");
  const auto fused = run_tiny("fedadam-3", "fedadam", "--set training.fuse=3");
  expect_same_costs(unfused, fused);
  EXPECT_GT(perf(fused, "training_jobs_fused"), 0);
}

// FedSeq waits for each job before the next starts: nothing is ever held beside it, so every
// job trains alone and the outputs are the unfused ones, byte for byte.
TEST(FusedRuns, ASequentialScheduleHasNothingToFuse) {
  const auto unfused = run_tiny("seq-off", "fedseq", "--set training.fuse=off");
  const auto fused = run_tiny("seq-4", "fedseq", "--set training.fuse=4");
  for (const char* f : {"rounds.csv", "hospitals.csv", "events.csv"})
    EXPECT_EQ(read_file(unfused + "/" + f), read_file(fused + "/" + f)) << f;
  EXPECT_EQ(perf(fused, "training_jobs_fused"), 0);
}

TEST(FusedRuns, BadSettingsAreRefused) {
  const std::string dir = test::temp_dir("fuse-bad");
  test::write_file(dir + "/s.yaml", test::tiny_scenario("fused"));
  for (const std::string bad : {"on", "0", "-3", "1.5"}) {
    const auto r = run_fedgrid("validate " + dir + "/s.yaml --set training.fuse=" + bad);
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.output;
    EXPECT_NE(r.output.find("training.fuse"), std::string::npos) << r.output;
  }
}

}  // namespace
}  // namespace fedgrid

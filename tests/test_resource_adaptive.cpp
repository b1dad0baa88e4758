// Model-heterogeneous federations: DynamicFL's budgets and costs, HeteroFL/FedRolex sub-models,
// fairness metrics and the simulated-time budget, checked by hand and in whole runs.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "algorithms/submodel.hpp"
#include "sim/jobs/evaluation/metrics.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

using test::cells;
using test::lines;
using test::read_file;
using test::run_ok;

// Six hospitals, two per tier, cnn on 16x16 synthetic images (smallest input it takes).
std::string tiered(const std::string& name, const std::string& extra = "") {
  return "name: " + name + R"(
seed: 7
platform: {tier_ratio: "1:1:1", hospital_count: 6}
data:
  dataset: synthetic
  partition: {scheme: dirichlet, beta: 1.0}
  synthetic: {train_samples: 1200, test_samples: 300, height: 16, width: 16}
model: {arch: cnn}
training: {lr: 0.05, batch_size: 16, local_epochs: 2}
stop: {rounds: 3}
)" + extra;
}

const models::ModelSpec kCnn16{"cnn", 1, 16, 16, 10};

void expect_same_files(const std::string& a, const std::string& b) {
  for (const char* f : {"rounds.csv", "hospitals.csv", "events.csv"})
    EXPECT_EQ(read_file(a + "/" + f), read_file(b + "/" + f)) << f;
}

// events.csv rows of one kind: host -> [round -> flops or bytes].
std::map<std::string, std::map<int, double>> by_host(const std::string& dir, const std::string& kind, size_t column) {
  std::map<std::string, std::map<int, double>> out;
  for (const auto& row : lines(read_file(dir + "/events.csv")))
    if (auto c = cells(row); c.size() > 7 && c[3] == kind) out[c[2]][std::stoi(c[7])] += std::stod(c[column]);
  return out;
}

TEST(DynamicFL, GrowingNothingIsFedAvg) {
  const std::string none = "\nalgorithm: {name: dynamicfl, expansions: {weak: 0, medium: 0, strong: 0}}\n";
  expect_same_files(run_ok("dyn-none", tiered("a", none)), run_ok("dyn-fedavg", tiered("a", "\nalgorithm: {name: fedavg}\n")));
}

// Growth draws its branches from the scenario seed and never from torch's global generator:
// one worker or two, the outputs are the same bytes.
TEST(DynamicFL, AndFedDFAreDeterministicAcrossWorkerCounts) {
  for (const char* algorithm : {"dynamicfl", "feddf"}) {
    SCOPED_TRACE(algorithm);
    const std::string yaml = tiered("w", std::string("\nalgorithm: {name: ") + algorithm + "}\n");
    const std::string sets = "--set data.server_share=0.1 --set model.weak.width_multiplier=0.5 ";
    const std::string tier = std::string(algorithm) == "feddf" ? sets : "";
    expect_same_files(run_ok(std::string("det1-") + algorithm, yaml, tier + "--set training.threads_per_worker=1 --set training.workers=1"),
                      run_ok(std::string("det2-") + algorithm, yaml, tier + "--set training.threads_per_worker=1 --set training.workers=2"));
  }
}

TEST(DynamicFL, EveryTierSendsThePlainModelAndScoresAsTheGlobalOne) {
  const auto out = run_ok("dyn-plain", tiered("p", "\nalgorithm: {name: dynamicfl}\n"));
  const int64_t plain = models::model_cost(kCnn16).state_values * 4 + models::kPayloadHeaderBytes;
  int sends = 0;
  for (const auto& row : lines(read_file(out + "/events.csv")))
    if (auto c = cells(row); c.size() > 5 && c[3] == "send") {
      EXPECT_EQ(std::stoll(c[5]), plain) << row;
      ++sends;
    }
  EXPECT_EQ(sends, 3 * 6 * 2);
  const auto rows = lines(read_file(out + "/rounds.csv"));
  const auto head = cells(rows[0]);
  for (size_t r = 1; r < rows.size(); ++r) {
    const auto c = cells(rows[r]);
    for (size_t k = 0; k < head.size(); ++k)
      if (head[k].rfind("global_acc_", 0) == 0) EXPECT_EQ(c[k], c[2]) << head[k];  // = accuracy
    EXPECT_EQ(c[size_t(std::find(head.begin(), head.end(), "tier_gap") - head.begin())], "0.000000");
  }
}

// Timing-only runs grow the first `expansions` convs, so the charges can be computed by hand.
// cnn on 1x16x16, batch 16, 100 samples per hospital, E = 2.
// Site 0, conv1 1->32 5x5 pad 0, 16x16 -> 12x12 (reduced mask: 1x1-kxk, 1x1-avg, kxk):
//   1x1 1->1 on 256 px + 5x5 1->32 on 144 px + 1x1 1->32 on 256 px = 256 + 115,200 + 8,192
//   = 123,648 MACs -> 247,296 FLOPs. Site 1, conv2 32->64 5x5 pad 0, 6x6 -> 2x2:
//   32*32*36 + 64*32*25*4 + 64*32*36 = 36,864 + 204,800 + 73,728 = 315,392 MACs -> 630,784.
TEST(DynamicFL, ComputeFollowsTheGrownModelAndTheBudgetPath) {
  const auto sites = models::conv_sites(kCnn16);
  ASSERT_EQ(sites.size(), 2u);
  EXPECT_DOUBLE_EQ(models::dbb_extra_flops(sites[0]), 247296);
  EXPECT_DOUBLE_EQ(models::dbb_extra_flops(sites[1]), 630784);
  const std::string extra = R"(
training: {mode: timing-only, batch_size: 16, local_epochs: 2}
data: {dataset: synthetic, samples_per_hospital: 100, synthetic: {height: 16, width: 16}}
algorithm:
  name: dynamicfl
  budget_changes: [{round: 2, tier: strong, expansions: 1}, {round: 3, tier: medium, expansions: 0}]
)";
  std::string yaml = tiered("t");
  yaml = yaml.substr(0, yaml.find("data:")) + "model: {arch: cnn}\nstop: {rounds: 3}\n" + extra;
  auto flops = by_host(run_ok("dyn-cost", yaml), "compute", 6);
  const double F = models::model_cost(kCnn16).forward_flops, n = 100, recal = 20 * 16;
  const double g1 = F + 247296, g2 = F + 247296 + 630784;
  const double plain = 2 * 3 * F * n;                            // weak: E epochs of the plain model
  const double normal1 = 3 * F * n + 3 * g1 * n + recal * g1;    // probe, grow 1, recalibrate, E - 1
  const double normal2 = 3 * F * n + 3 * g2 * n + recal * g2;
  EXPECT_DOUBLE_EQ(flops["weak-1"][1], plain);
  EXPECT_DOUBLE_EQ(flops["medium-1"][1], normal1);
  EXPECT_DOUBLE_EQ(flops["strong-1"][1], normal2);
  // Round 2: strong can afford 1 of last round's 2: no probe, E epochs on the grown model.
  EXPECT_DOUBLE_EQ(flops["strong-2"][2], 2 * 3 * g1 * n + recal * g1);
  EXPECT_DOUBLE_EQ(flops["strong-2"][3], normal1);  // round 3: budget kept, back to the normal path
  EXPECT_DOUBLE_EQ(flops["medium-2"][2], normal1);
  EXPECT_DOUBLE_EQ(flops["medium-2"][3], plain);  // decrease to 0: E plain epochs
}

TEST(DynamicFL, BudgetsBeyondTheModelAndTierModelsAreInputErrors) {
  test::expect_run_input_error("dyn-big", tiered("b", "\nalgorithm: {name: dynamicfl}\n"),
                               "--set algorithm.expansions.strong=3", "has 2 KxK convs");
  test::expect_run_input_error("dyn-tier", tiered("b", "\nalgorithm: {name: dynamicfl}\n"),
                               "--set model.weak=lenet5", "per-tier models need");
}

TEST(SubModel, IndexMapsNarrowOntoWideByHand) {
  // mlp on 1x1x2 inputs, 2 classes: fc1 [200,2] b[200], fc2 [200,200] b[200], fc3 [2,200] b[2].
  const models::ModelSpec wide{"mlp", 1, 1, 2, 2}, narrow{"mlp", 1, 1, 2, 2, 0.5};
  const auto idx = algorithms::submodel_index(wide, narrow, 0);
  ASSERT_EQ(int64_t(idx.size()), models::model_cost(narrow).state_values);  // 200+100+10000+100+200+2
  EXPECT_EQ(idx[0], 0);
  EXPECT_EQ(idx[199], 199);                          // fc1 row 99, col 1
  EXPECT_EQ(idx[200], 400);                          // fc1 bias 0
  EXPECT_EQ(idx[300 + 1 * 100 + 7], 600 + 1 * 200 + 7);  // fc2 [1, 7]
  EXPECT_EQ(idx[10400 + 100 + 1], 40800 + 200 + 1);  // fc3 [1, 1]: after fc2 bias (wide 40600..40799)
  // FedRolex's window at offset 150 of 200 units: units 150..199, then 0..49.
  const auto rolled = algorithms::submodel_index(wide, narrow, 150);
  EXPECT_EQ(rolled[0], 150 * 2);
  EXPECT_EQ(rolled[50 * 2], 0);  // fc1 row 50 -> wide row 0
  EXPECT_EQ(rolled[300 + 0 * 100 + 60], 600 + 150 * 200 + 10);
  EXPECT_THROW(algorithms::submodel_index(narrow, wide, 0), std::invalid_argument);
  EXPECT_THROW(algorithms::submodel_index(wide, {"cnn", 1, 16, 16, 2, 0.5}, 0), std::invalid_argument);
}

TEST(SubModel, AggregationAveragesEachValueOverItsHoldersByHand) {
  // Wide model of 4 values; A (30 samples) holds values 0 and 1, B (10 samples) holds 1 and 3.
  const models::ModelSpec spec{"mlp"};
  const Model wide{spec, {1.0f, 2.0f, 3.0f, 4.0f}};
  Update a{0, Model{spec, {10.0f, 20.0f}}, 30}, b{1, Model{spec, {40.0f, 80.0f}}, 10};
  const std::vector<int64_t> ia{0, 1}, ib{1, 3};
  const Model out = algorithms::aggregate_submodels(wide, {a, b}, {&ia, &ib});
  EXPECT_FLOAT_EQ(out.weights[0], 10.0f);                    // only A
  EXPECT_FLOAT_EQ(out.weights[1], (30 * 20.0f + 10 * 40.0f) / 40);  // 25
  EXPECT_FLOAT_EQ(out.weights[2], 3.0f);                     // nobody: kept
  EXPECT_FLOAT_EQ(out.weights[3], 80.0f);                    // only B
}

TEST(HeteroFL, FullWidthTiersAreFedAvg) {
  expect_same_files(run_ok("het-full", tiered("f", "\nalgorithm: {name: heterofl}\n")),
                    run_ok("het-fedavg", tiered("f", "\nalgorithm: {name: fedavg}\n")));
}

TEST(HeteroFL, SubModelsTravelAndTrainAtTheirSize) {
  for (const char* algorithm : {"heterofl", "fedrolex"}) {
    SCOPED_TRACE(algorithm);
    const auto out = run_ok(std::string("het-size-") + algorithm,
                            tiered("s", std::string("\nalgorithm: {name: ") + algorithm + "}\n"),
                            "--set model.weak.width_multiplier=0.25 --set model.medium.width_multiplier=0.5");
    const auto bytes = by_host(out, "send", 5), flops = by_host(out, "compute", 6);
    for (auto [tier, m] : {std::pair{"weak", 0.25}, {"medium", 0.5}, {"strong", 1.0}}) {
      models::ModelSpec spec = kCnn16;
      spec.width_multiplier = m;
      const auto cost = models::model_cost(spec);
      const std::string host = std::string(tier) + "-1";
      EXPECT_EQ(bytes.at(host).at(1), double(cost.state_values * 4 + models::kPayloadHeaderBytes)) << tier;
      const auto samples = std::stod(cells(lines(read_file(out + "/hospitals.csv"))[1 + (tier[0] == 'w' ? 0 : tier[0] == 'm' ? 2 : 4)])[3]);
      EXPECT_DOUBLE_EQ(flops.at(host).at(1), 2 * cost.train_flops() * samples) << tier;
    }
    const auto last = cells(lines(read_file(out + "/rounds.csv")).back());
    EXPECT_NE(last[last.size() - 2], "0.000000");  // different models per tier: a gap
  }
}

// FedDF's server work in round 1 (cnn x0.25 weak, x0.5 medium, lenet5 strong, cnn x1 at the
// server): an average per trained architecture, one ensemble pass of the six returned models
// over the n_s distillation samples, then 3 * F * n_s per architecture's distillation epoch.
TEST(FedDF, DistilsEveryArchitectureOnTheServersData) {
  const auto out = run_ok("feddf", tiered("d", "\nalgorithm: {name: feddf}\n"),
                          "--set data.server_share=0.1 --set model.weak.width_multiplier=0.25 "
                          "--set model.medium.width_multiplier=0.5 --set model.strong=lenet5");
  auto spec = [](const std::string& arch, double m) {
    models::ModelSpec s = kCnn16;
    s.arch = arch, s.width_multiplier = m;
    return models::model_cost(s);
  };
  const auto weak = spec("cnn", 0.25), medium = spec("cnn", 0.5), strong = spec("lenet5", 1), server = spec("cnn", 1);
  std::vector<double> charges;
  for (const auto& row : lines(read_file(out + "/events.csv")))
    if (auto c = cells(row); c.size() > 7 && c[3] == "server" && c[7] == "1") charges.push_back(std::stod(c[6]));
  ASSERT_EQ(charges.size(), 3u + 1 + 4);  // averages (3 trained archs), ensemble, 4 distillations
  const double ensemble = 2 * (weak.forward_flops + medium.forward_flops + strong.forward_flops);
  const double n_s = charges[3] / ensemble;
  EXPECT_GT(n_s, 0);
  EXPECT_DOUBLE_EQ(n_s, std::round(n_s));
  // Distillations in label order: "cnn", "cnn x0.25", "cnn x0.5", "lenet5".
  EXPECT_DOUBLE_EQ(charges[4], server.train_flops() * n_s);
  EXPECT_DOUBLE_EQ(charges[5], weak.train_flops() * n_s);
  EXPECT_DOUBLE_EQ(charges[6], medium.train_flops() * n_s);
  EXPECT_DOUBLE_EQ(charges[7], strong.train_flops() * n_s);
  // Each tier sends its own model.
  const auto bytes = by_host(out, "send", 5);
  EXPECT_EQ(bytes.at("weak-1").at(1), double(weak.state_values * 4 + models::kPayloadHeaderBytes));
  EXPECT_EQ(bytes.at("strong-1").at(1), double(strong.state_values * 4 + models::kPayloadHeaderBytes));
  test::expect_run_input_error("feddf-noshare", tiered("d", "\nalgorithm: {name: feddf}\n"), "", "data.server_share");
}

TEST(ModelHeterogeneous, EveryAlgorithmLearns) {
  const std::string widths = " --set model.weak.width_multiplier=0.25 --set model.medium.width_multiplier=0.5";
  for (const auto& [algorithm, sets] : std::vector<std::pair<std::string, std::string>>{
           {"dynamicfl", ""}, {"heterofl", widths}, {"fedrolex", widths}, {"feddf", widths + " --set data.server_share=0.1"}}) {
    SCOPED_TRACE(algorithm);
    const auto out = run_ok("learns-" + algorithm, tiered("l"), "--set algorithm.name=" + algorithm + sets);
    const auto s = nlohmann::json::parse(read_file(out + "/summary.json"));
    EXPECT_EQ(s["algorithm"], algorithm);
    EXPECT_GE(s["final_accuracy"].get<double>(), 0.5) << read_file(out + "/rounds.csv");
  }
}

// resnet10 at 16x16 ends on a 1x1 map; the server's training split here leaves a last batch of
// one sample, which a train-mode batch norm cannot normalise: that batch is left out, not a crash.
TEST(Training, BatchNormNetsSkipATrailingBatchOfOne) {
  run_ok("bn-one", tiered("b", "\nalgorithm: {name: unifed}\n"),
         "--set model.arch=resnet10 --set model.width_multiplier=0.25 --set data.server_share=0.1 --set stop.rounds=2");
}

TEST(Fairness, TierGapAndHospitalSpreadByHand) {
  EXPECT_DOUBLE_EQ(*accuracy_gap({{"weak", 0.6}, {"medium", std::nullopt}, {"strong", 0.9}}), 0.9 - 0.6);
  EXPECT_FALSE(accuracy_gap({{"weak", std::nullopt}}));
  // 0.5, 0.7, 0.9: mean 0.7, deviations 0.2: std sqrt(0.08 / 3).
  EXPECT_DOUBLE_EQ(*population_std({0.5, std::nullopt, 0.7, 0.9}), std::sqrt((0.04 + 0 + 0.04) / 3));
  EXPECT_FALSE(population_std({std::nullopt}));
}

TEST(Budget, NeverRunsARoundThatEndsAfterIt) {
  const auto free = run_ok("budget-free", tiered("b", "\nalgorithm: {name: fedavg}\n"));
  const auto rows = lines(read_file(free + "/rounds.csv"));
  const double end2 = std::stod(cells(rows[2])[1]), end3 = std::stod(cells(rows[3])[1]);
  const double budget = (end2 + end3) / 2;  // round 3 would end after it
  const auto out = run_ok("budget", tiered("b", "\nalgorithm: {name: fedavg}\n"),
                          "--set stop.sim_time_budget_s=" + std::to_string(budget));
  EXPECT_EQ(lines(read_file(out + "/rounds.csv")).size(), 3u);  // header + rounds 1, 2
  for (const auto& row : lines(read_file(out + "/events.csv")))
    if (auto c = cells(row); c[0] != "start_s") EXPECT_LE(std::stod(c[1]), budget) << row;
  const auto summary = nlohmann::json::parse(read_file(out + "/summary.json"));
  EXPECT_EQ(summary["stop_reason"], "sim_time_budget");
  EXPECT_EQ(summary["rounds"], 2);
  EXPECT_NEAR(summary["sim_time_s"].get<double>(), end2, 1e-9);
  EXPECT_EQ(summary["bytes_total"].get<int64_t>() * 3, nlohmann::json::parse(read_file(free + "/summary.json"))["bytes_total"].get<int64_t>() * 2);
}

TEST(Scenario, TierRatioDealsHospitalsWeakMediumStrong) {
  const auto out = run_ok("ratio", tiered("r", "\nalgorithm: {name: fedavg}\n"),
                          "--set stop.rounds=1 --set platform.tier_ratio=7:2:1 --set platform.hospital_count=10");
  std::map<std::string, int> per_tier;
  for (const auto& row : lines(read_file(out + "/hospitals.csv")))
    if (auto c = cells(row); c[0] == "1") per_tier[c[2]]++;
  EXPECT_EQ(per_tier, (std::map<std::string, int>{{"weak", 7}, {"medium", 2}, {"strong", 1}}));
  test::expect_run_input_error("ratio-bad", tiered("r"), "--set platform.hospital_count=7", "platform.tier_ratio");
  test::expect_run_input_error("tier-arch", tiered("r", "\nalgorithm: {name: heterofl}\n"), "--set model.weak=vgg99",
                               "'vgg99' is not one of");
  test::expect_run_input_error("tier-narrower", tiered("r", "\nalgorithm: {name: heterofl}\n"),
                               "--set model.width_multiplier=0.5 --set model.strong.width_multiplier=1",
                               "is not a sub-model");
}

}  // namespace
}  // namespace fedgrid

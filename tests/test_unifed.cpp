// UniFed: its arithmetic by hand, and its schedule and stopping in whole runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "algorithms/unifed/unifed_steps.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

using test::cells;
using test::lines;
using test::read_file;
using test::run_fedgrid;
using test::run_ok;

TEST(UniFed, LossSlopeIsTheLeastSquaresSlope) {
  EXPECT_DOUBLE_EQ(algorithms::loss_slope({4, 3, 2, 1}), -1.0);
  // b - mean(b) = -1.5 -0.5 0.5 1.5; L - mean(L) = -1 0 0 1: slope = 3 / 5.
  EXPECT_DOUBLE_EQ(algorithms::loss_slope({1, 2, 2, 3}), 0.6);
  EXPECT_DOUBLE_EQ(algorithms::loss_slope({2.5}), 0.0);
}

TEST(UniFed, OrderIsEasiestFirstTiesById) {
  const std::map<int, double> score{{0, 0.2}, {1, -0.5}, {2, 0.2}, {3, -1.0}};
  EXPECT_EQ(algorithms::order_by_score({0, 1, 2, 3, 4}, score), (std::vector<int>{3, 1, 0, 2, 4}));
}

TEST(UniFed, MixingFollowsThePaperFormula) {
  const models::ModelSpec spec{"mlp", 1, 2, 2, 2};
  const Model last{spec, {1.0f, 2.0f, -4.0f}}, server{spec, {3.0f, 0.0f, 6.0f}};
  const Model m = algorithms::mix(0.7, last, server);
  ASSERT_EQ(m.weights.size(), 3u);
  EXPECT_FLOAT_EQ(m.weights[0], 0.7f * 1 + 0.3f * 3);
  EXPECT_FLOAT_EQ(m.weights[1], 0.7f * 2);
  EXPECT_FLOAT_EQ(m.weights[2], 0.7f * -4 + 0.3f * 6);
}

std::string unifed_scenario(const std::string& name) {
  return test::tiny_scenario(name) + R"(
algorithm: {name: unifed, patience: 2, max_epochs: 6, min_delta: 0.0}
output: {trace: false}
)";
}

struct Span {
  double start, end;
  std::string host;
};

std::vector<Span> compute_spans(const std::string& events, int from_round) {
  std::vector<Span> out;
  for (const auto& row : lines(events)) {
    auto c = cells(row);
    if (c.size() < 8 || c[3] != "compute" || std::stoi(c[7]) < from_round) continue;
    out.push_back({std::stod(c[0]), std::stod(c[1]), c[2]});
  }
  return out;
}

bool any_overlap(std::vector<Span> spans) {
  std::sort(spans.begin(), spans.end(), [](auto& a, auto& b) { return a.start < b.start; });
  for (size_t i = 1; i < spans.size(); ++i)
    if (spans[i].start < spans[i - 1].end) return true;
  return false;
}

TEST(UniFed, RelaysOneHospitalAtATimeAfterTheFirstRound) {
  auto unifed = run_ok("unifed-seq", unifed_scenario("unifed-seq"), "--set data.server_share=0.1");
  auto fedavg = run_ok("fedavg-par", test::tiny_scenario("fedavg-par"));
  const auto spans = compute_spans(read_file(unifed + "/events.csv"), 2);
  ASSERT_EQ(spans.size(), 2u * 6);  // rounds 2 and 3, six hospitals each
  EXPECT_FALSE(any_overlap(spans));
  EXPECT_TRUE(any_overlap(compute_spans(read_file(unifed + "/events.csv"), 1)));  // round 1 is parallel
  EXPECT_TRUE(any_overlap(compute_spans(read_file(fedavg + "/events.csv"), 1)));
  // The server trains its own copy every sequential round.
  int server_training = 0;
  for (const auto& row : lines(read_file(unifed + "/events.csv")))
    if (row.find(",server,server,") != std::string::npos && std::stod(cells(row)[6]) > 1e7) ++server_training;
  EXPECT_EQ(server_training, 2);
}

TEST(UniFed, VisitsLastAsLongAsTheirValidationLossSays) {
  auto out = run_ok("unifed-epochs", unifed_scenario("unifed-epochs"), "--set data.server_share=0.1");
  std::set<int> epochs;
  int64_t total = 0;
  for (const auto& row : lines(read_file(out + "/hospitals.csv"))) {
    auto c = cells(row);
    if (c[0] == "round") continue;
    const int e = std::stoi(c[4]);
    total += e;
    if (c[0] == "1") {
      EXPECT_EQ(e, 1);  // E_f
    } else {
      EXPECT_GE(e, 1);
      EXPECT_LE(e, 6);  // E_max
      epochs.insert(e);
    }
  }
  EXPECT_GT(epochs.size(), 1u) << "every visit took the same number of epochs";
  EXPECT_NE(read_file(out + "/summary.json").find("\"epoch_transfers\": " + std::to_string(total)), std::string::npos);
}

TEST(UniFed, TheServerShareIsHeldBackFromTheHospitals) {
  auto samples_in_round_1 = [](const std::string& out) {
    int64_t total = 0;
    for (const auto& row : lines(read_file(out + "/hospitals.csv")))
      if (row.rfind("1,", 0) == 0) total += std::stoll(cells(row)[3]);
    return total;
  };
  const int64_t all = samples_in_round_1(run_ok("share-0", test::tiny_scenario("share-0"), "--set stop.rounds=1"));
  const int64_t rest = samples_in_round_1(
      run_ok("share-20", test::tiny_scenario("share-20"), "--set stop.rounds=1 --set data.server_share=0.2"));
  // 1,200 pool samples, 20% (stratified, per class rounding) stay at the server; hospitals
  // train on 70% of what they hold.
  EXPECT_NEAR(double(rest) / double(all), 0.8, 0.01) << rest << " of " << all;
}

TEST(UniFed, NeedsServerDataAndRealTraining) {
  test::expect_run_input_error("unifed-no-share", unifed_scenario("u"), "", "key 'data.server_share'");
  test::expect_run_input_error("unifed-timing", unifed_scenario("u"),
                               "--set data.server_share=0.1 --set training.mode=timing-only", "key 'training.mode'");
}

}  // namespace
}  // namespace fedgrid

// UniFed: its arithmetic by hand, and its schedule and stopping in whole runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "algorithms/unifed/unifed_steps.hpp"
#include "algorithms/unifed/validated_visit.hpp"
#include "sim/jobs/compute.hpp"
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

// The column `name` of the data rows of a CSV, by round.
std::map<int, std::string> column_by_round(const std::string& csv, const std::string& name) {
  std::map<int, std::string> out;
  const auto rows = lines(csv);
  const auto head = cells(rows.at(0));
  const size_t col = size_t(std::find(head.begin(), head.end(), name) - head.begin());
  for (size_t i = 1; i < rows.size(); ++i) out[std::stoi(cells(rows[i])[0])] = cells(rows[i]).at(col);
  return out;
}

// keep_best_round: the rows of the rounds before the stop score each round's own mix, the row
// of the round the global patience runs out in scores the mix of the last improving round.
TEST(UniFed, TheGlobalStopEndsWithTheBestMixedModel) {
  const std::string sets =
      "--set data.server_share=0.1 --set stop.rounds=12 --set algorithm.global_patience=2 "
      "--set algorithm.min_delta=0.02 --set data.synthetic.noise=4";
  auto last = run_ok("unifed-last", unifed_scenario("unifed-last"), sets);
  auto best = run_ok("unifed-best", unifed_scenario("unifed-best"), sets + " --set algorithm.keep_best_round=true");
  const auto acc_last = column_by_round(read_file(last + "/rounds.csv"), "accuracy");
  const auto acc_best = column_by_round(read_file(best + "/rounds.csv"), "accuracy");
  ASSERT_EQ(acc_best.size(), acc_last.size()) << "the same training stops in the same round";
  const int stop = acc_last.rbegin()->first;
  ASSERT_LT(stop, 12) << "the global patience never ran out: the example shows nothing";
  for (int r = 1; r < stop; ++r) EXPECT_EQ(acc_best.at(r), acc_last.at(r)) << "round " << r;
  // Patience 2: the last improvement was two rounds before the stop.
  EXPECT_EQ(acc_best.at(stop), acc_last.at(stop - 2));
  EXPECT_NE(acc_last.at(stop), acc_last.at(stop - 2)) << "the best and the last mix score alike: no evidence";
  const std::string summary = read_file(best + "/summary.json");
  const size_t at = summary.find("\"final_accuracy\": ");
  ASSERT_NE(at, std::string::npos);
  EXPECT_NEAR(std::stod(summary.substr(at + 18)), std::stod(acc_best.at(stop)), 1e-6);
}

// authors_code: each sequential round's relay starts at the first hospital, which resumes its
// own model and downloads nothing; every later hospital gets the previous one's model from
// the server. The paper's relay sends the mixed model to the first hospital too.
TEST(UniFed, AuthorsCodeRestartsTheRelayFromTheFirstHospital) {
  auto sends_in = [](const std::string& events, int round) {
    std::vector<std::string> kinds;  // "down" (server to hospital) or "compute", in time order
    for (const auto& row : lines(events)) {
      auto c = cells(row);
      if (c.size() < 8 || c[7] != std::to_string(round)) continue;
      if (c[3] == "compute" && c[2] != "server") kinds.push_back("compute");
      if (c[3] == "send" && c[2] == "server") kinds.push_back("down");
    }
    return kinds;
  };
  const std::string sets = "--set data.server_share=0.1 --set algorithm.first_round_epochs=2";
  auto code = run_ok("unifed-code", unifed_scenario("unifed-code"), sets + " --set algorithm.variant=authors_code");
  auto paper = run_ok("unifed-paper", unifed_scenario("unifed-paper"), sets);
  const std::vector<std::string> relayed{"down", "compute", "down", "compute", "down", "compute",
                                         "down", "compute", "down", "compute", "down", "compute"};
  std::vector<std::string> restarted(relayed.begin() + 1, relayed.end());
  for (int round : {2, 3}) {
    EXPECT_EQ(sends_in(read_file(code + "/events.csv"), round), restarted) << "round " << round;
    EXPECT_EQ(sends_in(read_file(paper + "/events.csv"), round), relayed) << "round " << round;
  }
  // E_f = 2 in round 1 for both.
  for (const auto& row : lines(read_file(code + "/hospitals.csv")))
    if (row.rfind("1,", 0) == 0) EXPECT_EQ(cells(row)[4], "2");
}

// A tiny dataset for a visit run by hand: class k's 6x6 images sit around level k / 4.
data::Dataset levels() {
  data::Dataset d;
  d.shape = {1, 6, 6};
  d.num_classes = 4;
  for (int i = 0; i < 64; ++i) {
    d.labels.push_back(i % 4);
    for (int p = 0; p < 36; ++p) d.images.push_back(float((i % 4) / 4.0 + 0.1 * ((i * 7 + p * 3) % 10) / 10.0));
  }
  return d;
}

// authors_code's persistent optimizers: a visit saves SGD's momentum buffers, the node's next
// visit starts with them (so its steps differ from a fresh optimizer's from the same weights);
// without momentum there is nothing to keep.
TEST(UniFed, AuthorsCodeVisitsKeepTheirMomentum) {
  const data::Dataset d = levels();
  data::Indices train, val;
  for (int64_t i = 0; i < 64; ++i) (i < 48 ? train : val).push_back(i);
  const models::ModelSpec spec{"mlp", 1, 6, 6, 4};
  const Model start{spec, initial_weights(spec, 3)};
  const OptimizerConfig sgd{Optimizer::Sgd, 0.05, 0.9, 0};
  auto visit = [&](const Model& from, algorithms::MomentumBuffers* m, const OptimizerConfig& opt,
                   algorithms::StoppingRule rule) {
    const JobInput in{&from, &d, &train, &val, 16, 0, opt, 11};
    return algorithms::ValidatedVisit(rule, m).run(in);
  };
  algorithms::MomentumBuffers kept;
  const TrainOutcome round1 = visit(start, &kept, sgd, {0, 2});  // E_f = 2, no validation
  EXPECT_EQ(round1.epochs, 2);
  ASSERT_FALSE(kept.empty());
  EXPECT_TRUE(std::any_of(kept.begin(), kept.end(), [](double v) { return v != 0; })) << "momentum is all zero";

  const Model resumed{spec, round1.weights};
  algorithms::MomentumBuffers carried = kept, fresh;
  const TrainOutcome with_kept = visit(resumed, &carried, sgd, {0, 1});
  const TrainOutcome with_fresh = visit(resumed, &fresh, sgd, {0, 1});
  const TrainOutcome paper = visit(resumed, nullptr, sgd, {0, 1});
  EXPECT_NE(with_kept.weights, with_fresh.weights);
  EXPECT_EQ(with_fresh.weights, paper.weights);
  EXPECT_NE(carried, kept) << "the second visit did not save its buffers";

  algorithms::MomentumBuffers none;
  visit(start, &none, {Optimizer::Sgd, 0.05, 0, 0}, {0, 1});
  EXPECT_TRUE(none.empty());
}

// The control: the server trains on its share alone; no hospital sends or trains.
TEST(UniFed, TheServerShareControlTrainsAtTheServerAlone) {
  auto out = run_ok("server-only", test::tiny_scenario("server-only", R"(
algorithm: {name: unifed_server_only, patience: 2, max_epochs: 4}
output: {trace: false}
)"),
                    "--set data.server_share=0.1");
  for (const auto& row : lines(read_file(out + "/events.csv"))) {
    auto c = cells(row);
    if (c[0] == "start_s") continue;
    EXPECT_EQ(c[2], "server") << row;
    EXPECT_NE(c[3], "send") << row;
  }
  EXPECT_EQ(column_by_round(read_file(out + "/rounds.csv"), "accuracy").size(), 3u);
}

TEST(UniFed, NeedsServerDataAndRealTraining) {
  test::expect_run_input_error("unifed-no-share", unifed_scenario("u"), "", "key 'data.server_share'");
  test::expect_run_input_error("unifed-timing", unifed_scenario("u"),
                               "--set data.server_share=0.1 --set training.mode=timing-only", "key 'training.mode'");
  test::expect_run_input_error("unifed-variant", unifed_scenario("u"),
                               "--set data.server_share=0.1 --set algorithm.variant=authors", "key 'algorithm.variant'");
  test::expect_run_input_error("unifed-adam", unifed_scenario("u"),
                               "--set data.server_share=0.1 --set algorithm.variant=authors_code "
                               "--set training.optimizer=adam",
                               "key 'training.optimizer'");
}

}  // namespace
}  // namespace fedgrid

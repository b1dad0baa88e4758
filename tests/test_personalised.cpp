// The personalised baselines of CarPe-FL's comparison: Ditto, FedRep, FedAMP, in whole runs:
// what they send, how much each hospital trains, and FedAMP's limit where attention vanishes.
#include <gtest/gtest.h>

#include <map>

#include "models/model_spec.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

std::string three(const std::string& algorithm) {
  return test::tiny_scenario("personalised", "algorithm: {name: " + algorithm + "}\ntiming: {network: cm02}\n") +
         "output: {trace: false}\n";
}

// hospitals.csv by column name, one map per row.
std::vector<std::map<std::string, std::string>> rows_of(const std::string& dir) {
  const auto rows = test::lines(test::read_file(dir + "/hospitals.csv"));
  const auto header = test::cells(rows[0]);
  std::vector<std::map<std::string, std::string>> out;
  for (size_t r = 1; r < rows.size(); ++r) {
    const auto c = test::cells(rows[r]);
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < header.size(); ++i) row[header[i]] = c[i];
    out.push_back(row);
  }
  return out;
}

TEST(Personalised, FedRepSendsTheBodyOnlyAndTrainsHeadThenBody) {
  const std::string dir = test::run_ok("fedrep-bytes", three("fedrep"), "--set algorithm.head_epochs=2");
  // The tiny scenario's mlp on 12x12 synthetic images: its classifier (200 x classes + classes) stays home.
  const models::ModelSpec spec{"mlp", 1, 12, 12, 10};
  const int64_t body = models::model_cost(spec).state_values - (200 * 10 + 10);
  for (const auto& row : rows_of(dir)) {
    EXPECT_EQ(std::stoll(row.at("bytes_up")), body * 4 + models::kPayloadHeaderBytes);
    EXPECT_EQ(std::stoll(row.at("bytes_down")), body * 4 + models::kPayloadHeaderBytes);
    EXPECT_EQ(row.at("epochs"), "3");  // 2 head epochs + 1 body epoch
  }
}

TEST(Personalised, DittoTrainsTheGlobalAndThePersonalModel) {
  const std::string dir = test::run_ok("ditto-epochs", three("ditto"));
  const int64_t model = models::model_cost({"mlp", 1, 12, 12, 10}).state_values * 4 + models::kPayloadHeaderBytes;
  for (const auto& row : rows_of(dir)) {
    EXPECT_EQ(row.at("epochs"), "2");
    EXPECT_EQ(std::stoll(row.at("bytes_up")), model);  // the global model only; v_k stays
  }
}

// alpha_k -> 0 and lambda = 0: every cloud model is the hospital's own model (to float
// precision) and the proximal term vanishes, so FedAMP trains as `local` does, to the bit.
TEST(Personalised, FedAmpWithoutAttentionIsLocalTraining) {
  const std::string amp = test::run_ok("fedamp-limit", three("fedamp"), "--set algorithm.alpha_k=1e-30 --set algorithm.lambda=0");
  const std::string local = test::run_ok("fedamp-local", three("local"));
  const auto a = rows_of(amp), l = rows_of(local);
  ASSERT_EQ(a.size(), l.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].at("accuracy"), l[i].at("accuracy")) << i;
    EXPECT_EQ(a[i].at("train_loss"), l[i].at("train_loss")) << i;
  }
  // With attention the models are pulled together: the result moves.
  const std::string attentive = test::run_ok("fedamp-attentive", three("fedamp"), "--set algorithm.sigma=1000 --set algorithm.alpha_k=100");
  EXPECT_NE(test::read_file(attentive + "/hospitals.csv"), test::read_file(amp + "/hospitals.csv"));
}

}  // namespace
}  // namespace fedgrid

// The pieces the seed papers' protocols need beyond plain FedAvg settings: a per-round cosine
// learning rate (training.lr_schedule), K-fold cross-validation splits (data.split.folds), the
// batch-norm cnn that diverse-branch growth assumes (cnn_bn) and global models wider than the
// plain one (model.width_multiplier above 1).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "data/partition.hpp"
#include "models/model_spec.hpp"
#include "sim/jobs/compute.hpp"
#include "sim/jobs/training/lr_schedule.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

using test::cells;
using test::lines;
using test::read_file;
using test::run_fedgrid;
using test::run_ok;

TEST(LrSchedule, CosinePerRoundByHand) {
  // lr_min + (lr - lr_min)(1 + cos(pi (r - 1) / R)) / 2 with lr 0.1, lr_min 0.02, R = 4.
  EXPECT_DOUBLE_EQ(lr_at_round(LrSchedule::Cosine, 0.1, 0.02, 1, 4), 0.1);
  EXPECT_DOUBLE_EQ(lr_at_round(LrSchedule::Cosine, 0.1, 0.02, 2, 4), 0.02 + 0.08 * (1 + std::sqrt(0.5)) / 2);  // 0.08828...
  EXPECT_DOUBLE_EQ(lr_at_round(LrSchedule::Cosine, 0.1, 0.02, 3, 4), 0.06);
  EXPECT_DOUBLE_EQ(lr_at_round(LrSchedule::Cosine, 0.1, 0.02, 4, 4), 0.02 + 0.08 * (1 - std::sqrt(0.5)) / 2);
  EXPECT_DOUBLE_EQ(lr_at_round(LrSchedule::Cosine, 0.1, 0.02, 9, 4), 0.02);  // past stop.rounds (a resumed run given more)
  EXPECT_DOUBLE_EQ(lr_at_round(LrSchedule::Constant, 0.1, 0.02, 3, 4), 0.1);
}

std::string round_row(const std::string& dir, size_t round) { return lines(read_file(dir + "/rounds.csv")).at(round); }

// Round 1 trains at lr either way, so its row is the constant run's; from round 2 the rate falls.
TEST(LrSchedule, CosineRunsLikeConstantInRoundOneThenDiverges) {
  const std::string yaml = test::tiny_scenario("lr");
  const auto constant = run_ok("lr-constant", yaml);
  const auto cosine = run_ok("lr-cosine", yaml, "--set training.lr_schedule=cosine --set training.lr_min=0.001");
  EXPECT_EQ(round_row(constant, 1), round_row(cosine, 1));
  EXPECT_NE(round_row(constant, 3), round_row(cosine, 3));
  const auto again = run_ok("lr-cosine-2", yaml, "--set training.lr_schedule=cosine --set training.lr_min=0.001");
  EXPECT_EQ(read_file(cosine + "/rounds.csv"), read_file(again + "/rounds.csv"));
  const auto bad = run_fedgrid("validate " + cosine + "/../s.yaml --set training.lr_schedule=linear");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("training.lr_schedule"), std::string::npos) << bad.output;
  const auto rising = run_fedgrid("validate " + cosine + "/../s.yaml --set training.lr_schedule=cosine --set training.lr_min=1");
  EXPECT_EQ(rising.exit_code, 2) << rising.output;
  EXPECT_NE(rising.output.find("training.lr_min"), std::string::npos) << rising.output;
}

// Two classes of 10 and 7 samples, 5 folds.
TEST(Folds, EverySampleIsTestedOnceAndFoldsAreStratified) {
  std::vector<int64_t> labels(17);
  data::Indices held;
  for (int64_t i = 0; i < 17; ++i) labels[size_t(i)] = i < 10 ? 0 : 1, held.push_back(i);
  std::multiset<int64_t> tested;
  for (int fold = 1; fold <= 5; ++fold) {
    const auto split = data::split_folds(held, labels, 5, fold, 0.25, 99);
    std::map<int64_t, int> per_class;
    for (int64_t i : split.test) tested.insert(i), ++per_class[labels[size_t(i)]];
    EXPECT_EQ(per_class[0], 2) << fold;                            // 10 / 5
    EXPECT_EQ(per_class[1], fold <= 2 ? 2 : 1) << fold;            // 7 dealt round robin: 2, 2, 1, 1, 1
    const size_t rest = 17 - split.test.size();
    EXPECT_EQ(split.train.size() + split.val.size(), rest) << fold;
    std::set<int64_t> all(split.train.begin(), split.train.end());
    all.insert(split.val.begin(), split.val.end());
    for (int64_t i : split.test) EXPECT_FALSE(all.count(i)) << fold << ": " << i << " both tested and trained";
  }
  EXPECT_EQ(tested.size(), 17u);
  EXPECT_EQ(std::set<int64_t>(tested.begin(), tested.end()).size(), 17u);  // each exactly once
  // Validation: round(rest * 0.25) per class: class 0 rest 8 -> 2, class 1 rest 5 -> 1 (fold 1).
  EXPECT_EQ(data::split_folds(held, labels, 5, 1, 0.25, 99).val.size(), 3u);
  EXPECT_THROW(data::split_folds(held, labels, 5, 6, 0, 99), std::invalid_argument);
}

TEST(Folds, ScenarioKeysAreCheckedAndRunsDiffer) {
  const std::string yaml = test::tiny_scenario("folds", "");
  const std::string with_folds = yaml.substr(0, yaml.find("model:")) + "  split: {folds: 5, val: 0}\n" +
                                 yaml.substr(yaml.find("model:"));
  const auto one = run_ok("folds-1", with_folds);
  const auto two = run_ok("folds-2", with_folds, "--set data.split.fold=2");
  EXPECT_NE(read_file(one + "/hospitals.csv"), read_file(two + "/hospitals.csv"));
  const std::string dir = test::temp_dir("folds-bad");
  test::write_file(dir + "/s.yaml", with_folds);
  for (const auto& [sets, key] : std::vector<std::pair<std::string, std::string>>{
           {"--set data.split.fold=6", "data.split.fold"},
           {"--set data.split.test=0.3", "data.split.test"},
           {"--set data.split.folds=1", "data.split.folds"}}) {
    const auto r = run_fedgrid("validate " + dir + "/s.yaml " + sets);
    EXPECT_EQ(r.exit_code, 2) << sets << "\n" << r.output;
    EXPECT_NE(r.output.find(key), std::string::npos) << r.output;
  }
}

// cnn_bn: the cnn with a batch norm after each conv; DynamicFL grows its convs (followed by a BN)
// and folds them back to the plain model's bytes; a width above 1 makes a wider global model that
// HeteroFL slices down to the plain width.
TEST(PaperModels, BatchNormCnnGrowsAndWideGlobalModelsSlice) {
  const std::string base = test::tiny_scenario("cnn-bn");
  std::string yaml = base;
  yaml.replace(yaml.find("model: {arch: mlp}"), 18, "model: {arch: cnn_bn}");
  yaml.replace(yaml.find("height: 12, width: 12"), 21, "height: 16, width: 16");
  const auto grown = run_ok("cnn-bn-dfl", yaml, "--set algorithm.name=dynamicfl --set training.local_epochs=2");
  const auto rows = lines(read_file(grown + "/hospitals.csv"));
  const int64_t plain_bytes =
      models::model_cost({"cnn_bn", 1, 16, 16, 10, 1.0}).state_values * 4 + models::kPayloadHeaderBytes;
  for (size_t i = 1; i < rows.size(); ++i) EXPECT_EQ(cells(rows[i])[9], std::to_string(plain_bytes)) << rows[i];
  const auto wide = run_ok("cnn-bn-wide", yaml,
                           "--set algorithm.name=heterofl --set model.width_multiplier=1.5 "
                           "--set model.weak.width_multiplier=1 --set model.medium.width_multiplier=1.25");
  for (const auto& row : lines(read_file(wide + "/hospitals.csv"))) {
    const auto c = cells(row);
    if (c[2] == "weak") EXPECT_EQ(c[9], std::to_string(plain_bytes)) << row;
    if (c[2] == "strong")
      EXPECT_EQ(c[9], std::to_string(models::model_cost({"cnn_bn", 1, 16, 16, 10, 1.5}).state_values * 4 +
                                     models::kPayloadHeaderBytes))
          << row;
  }
  const auto too_wide = run_fedgrid("validate " + wide + "/../s.yaml --set model.width_multiplier=5");
  EXPECT_EQ(too_wide.exit_code, 2) << too_wide.output;
  EXPECT_NE(too_wide.output.find("model.width_multiplier"), std::string::npos) << too_wide.output;
}

}  // namespace
}  // namespace fedgrid

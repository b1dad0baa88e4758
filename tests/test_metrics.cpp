// Macro metrics against a confusion matrix worked by hand.
#include <gtest/gtest.h>

#include "sim/jobs/evaluation/metrics.hpp"

namespace fedgrid {
namespace {

TEST(Metrics, MacroScoresOfAHandWorkedMatrix) {
  // rows: true class, columns: predicted class.
  const std::vector<int64_t> m{2, 1, 0,  //
                               0, 3, 1,  //
                               1, 0, 2};
  auto r = macro_metrics(m, 3);
  ASSERT_TRUE(r);
  // class 0: tp 2 fp 1 fn 1 tn 6; class 1: tp 3 fp 1 fn 1 tn 5; class 2: tp 2 fp 1 fn 1 tn 6.
  EXPECT_NEAR(r->f1, (2.0 / 3 + 3.0 / 4 + 2.0 / 3) / 3, 1e-12);
  EXPECT_NEAR(r->sensitivity, (2.0 / 3 + 3.0 / 4 + 2.0 / 3) / 3, 1e-12);
  EXPECT_NEAR(r->specificity, (6.0 / 7 + 5.0 / 6 + 6.0 / 7) / 3, 1e-12);
  EXPECT_NEAR(r->precision, (2.0 / 3 + 3.0 / 4 + 2.0 / 3) / 3, 1e-12);
  EXPECT_EQ(r->classes_counted, 3);
}

// CarPe-FL's site figures: balanced accuracy counts only the classes among the true labels (a
// class only predicted, as class 2 here, adds no recall), and the worst site is the minimum.
TEST(Metrics, BalancedAccuracyAndWorstSiteByHand) {
  const std::vector<int64_t> m{3, 1, 0,  //
                               1, 1, 2,  //
                               0, 0, 0};
  EXPECT_NEAR(*balanced_accuracy(m, 3), (3.0 / 4 + 1.0 / 4) / 2, 1e-12);
  EXPECT_FALSE(balanced_accuracy(std::vector<int64_t>(4, 0), 2));
  EXPECT_THROW(balanced_accuracy({1, 2, 3}, 2), std::invalid_argument);
  EXPECT_EQ(*min_present({0.7, std::nullopt, 0.4, 0.9}), 0.4);
  EXPECT_FALSE(min_present({std::nullopt}));
}

TEST(Metrics, AClassNeitherPresentNorPredictedIsLeftOut) {
  const std::vector<int64_t> m{2, 1, 0, 0,  //
                               0, 3, 1, 0,  //
                               1, 0, 2, 0,  //
                               0, 0, 0, 0};
  auto with_absent = macro_metrics(m, 4), without = macro_metrics({2, 1, 0, 0, 3, 1, 1, 0, 2}, 3);
  EXPECT_DOUBLE_EQ(with_absent->f1, without->f1);
  EXPECT_DOUBLE_EQ(with_absent->specificity, without->specificity);
  EXPECT_EQ(with_absent->classes_counted, 3);
}

TEST(Metrics, AClassNeverPredictedScoresZero) {
  // Everything predicted as class 0: class 1 has recall 0 and F1 0; its specificity is 1.
  auto r = macro_metrics({5, 0, 5, 0}, 2);
  EXPECT_NEAR(r->sensitivity, (1.0 + 0.0) / 2, 1e-12);
  EXPECT_NEAR(r->f1, (2 * 0.5 * 1.0 / 1.5 + 0.0) / 2, 1e-12);
  EXPECT_NEAR(r->specificity, (0.0 + 1.0) / 2, 1e-12);
  EXPECT_NEAR(r->precision, (0.5 + 0.0) / 2, 1e-12);  // class 1 never predicted: precision 0
  EXPECT_FALSE(macro_metrics({0, 0, 0, 0}, 2));
  EXPECT_THROW(macro_metrics({1, 2, 3}, 2), std::invalid_argument);
}

}  // namespace
}  // namespace fedgrid

// Evaluation split into batches on several workers gives exactly the figures of one thread
// scoring in one pass (sim/jobs/evaluation/parallel_evaluation.hpp), with the large-block cache on.
#include <gtest/gtest.h>

#include <numeric>

#include "data/sources.hpp"
#include "sim/jobs/compute.hpp"
#include "sim/jobs/executor.hpp"
#include "sim/jobs/evaluation/parallel_evaluation.hpp"

namespace fedgrid {
namespace {

void expect_same(const EvalOutcome& a, const EvalOutcome& b) {
  EXPECT_EQ(a.samples, b.samples);
  EXPECT_EQ(a.accuracy, b.accuracy);  // exact: the same arithmetic in the same order
  EXPECT_EQ(a.loss, b.loss);
  EXPECT_EQ(a.auc, b.auc);
  EXPECT_EQ(a.confusion, b.confusion);
}

TEST(ParallelEvaluation, TwoWorkersGiveOneThreadsFiguresExactly) {
  // 2,600 test samples: two full batches and a partial one; a 2,300-sample subset in a
  // scrambled order for the indexed path.
  const auto data = data::make_synthetic({.train_samples = 3000, .test_samples = 2600, .seed = 7});
  data::Indices subset(2300);
  for (size_t i = 0; i < subset.size(); ++i) subset[i] = int64_t((i * 1237) % 3000);
  const models::ModelSpec spec{.arch = "cnn"};
  const std::vector<float> weights = initial_weights(spec, 11);

  // The reference: one worker, each evaluation in one job, the default allocator.
  Executor one(1, [] { init_torch_worker(1); });
  const EvalOutcome whole = one.submit([&] { return run_evaluation(spec, weights, data.test, nullptr); }).get();
  const EvalOutcome part = one.submit([&] { return run_evaluation(spec, weights, data.train, &subset); }).get();
  ASSERT_EQ(whole.samples, 2600);
  ASSERT_EQ(part.samples, 2300);
  ASSERT_TRUE(whole.auc.has_value());

  cache_large_blocks();
  Executor two(2, [] { init_torch_worker(1); });
  for (int pass = 0; pass < 2; ++pass) {  // the second pass runs on reused blocks
    ParallelEvaluation ev(two, ComputeDevice::Cpu);
    const size_t a = ev.add(spec, weights, data.test, nullptr);
    const size_t b = ev.add(spec, weights, data.train, &subset);
    expect_same(ev.get(b), part);  // collected out of order on purpose
    expect_same(ev.get(a), whole);
  }
  release_cached_blocks();
}

TEST(ParallelEvaluation, NothingToScoreIsEmpty) {
  const auto data = data::make_synthetic({.train_samples = 100, .test_samples = 10});
  const models::ModelSpec spec{.arch = "mlp"};
  const std::vector<float> weights = initial_weights(spec, 1);
  Executor two(2, [] { init_torch_worker(1); });
  ParallelEvaluation ev(two, ComputeDevice::Cpu);
  const data::Indices none;
  const EvalOutcome e = ev.get(ev.add(spec, weights, data.train, &none));
  EXPECT_EQ(e.samples, 0);
  EXPECT_TRUE(e.confusion.empty());
  EXPECT_FALSE(e.auc.has_value());
}

TEST(ParallelEvaluation, CombiningAddsLossesBatchAfterBatch) {
  // Two parts of one and two batches: the loss is ((0 + 1e16) + 1) + 1 = 1e16 over the
  // samples (each + 1 rounds away), not 1e16 + (1 + 1) as per-part sums would give.
  EvalPart p1{{1e16}, 1, {1, 0, 0, 0}, {0.9f, 0.1f}, {0}};
  EvalPart p2{{1.0, 1.0}, 1, {0, 0, 0, 1}, {0.2f, 0.8f}, {1}};
  const EvalOutcome e = combine_evaluation({p1, p2}, 2);
  EXPECT_EQ(e.samples, 2);
  EXPECT_EQ(e.loss, 1e16 / 2);
  EXPECT_NE(e.loss, (1e16 + 2.0) / 2);
  EXPECT_EQ(e.accuracy, 1.0);
  EXPECT_EQ(e.confusion, (std::vector<int64_t>{1, 0, 0, 1}));
  EXPECT_EQ(e.auc, 1.0);
}

}  // namespace
}  // namespace fedgrid

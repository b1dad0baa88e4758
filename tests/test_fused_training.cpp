// training.fuse's batched training (sim/jobs/fused/fused_training.hpp): every member of a fused job
// ends where its own job ends (the same steps and epochs; weights within 1e-5 relative and the
// same losses under SGD, within a looser bound under Adam and AdamW, where a rounding difference
// can throw a unit off course: see trimmed_relative_gap), for each fused arch, the three
// optimisers, the proximal term, augmentation and jobs sized in steps; members of different
// sizes stop at their own last batch. The queue fuses only what it may.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <algorithm>
#include <cmath>

#include "algorithms/proximal.hpp"
#include "data/rng.hpp"
#include "sim/jobs/fused/fused_net.hpp"
#include "sim/jobs/fused/fused_training.hpp"
#include "sim/jobs/training/plain_training.hpp"
#include "sim/jobs/training_queue.hpp"

namespace fedgrid {
namespace {

data::Dataset noise_dataset(int channels, int side, int classes, int samples) {
  data::Dataset d;
  d.shape = {channels, side, side};
  d.num_classes = classes;
  Rng rng(11);
  for (int i = 0; i < samples; ++i) {
    for (int p = 0; p < channels * side * side; ++p) d.images.push_back(float(rng.normal()) + 0.3f * float(i % classes));
    d.labels.push_back(i % classes);
  }
  return d;
}

// ||a - b|| / ||b|| over all but the `share` of entries that differ most. Adam steps each weight
// by about lr whatever its gradient's size, so where fused and alone round a pre-activation on
// either side of a ReLU's kink (the grouped convolution sums in another order), that unit's
// fan-in takes a different step of ~lr, and the later gradients of every weight differ a little.
// On an AVX-512 EPYC (family 26) the AdamW case's first member ends 5.0e-4 apart: 701 of its
// 582,026 weights (one unit's) by more than 1e-4, up to 1.3e-3; the rest 8.8e-5 apart (every
// other member and case within 1.1e-5). A real error moves every weight by far more: with the
// decay left out 5.2e-3, coupled 0.31, over the same trimmed share
// (TrimmedGapStillSeesAMissingDecay).
double trimmed_relative_gap(const std::vector<float>& a, const std::vector<float>& b, double share) {
  std::vector<double> sq(b.size());
  double norm = 0;
  for (size_t i = 0; i < b.size(); ++i) sq[i] = std::pow(double(a[i]) - b[i], 2), norm += double(b[i]) * b[i];
  const size_t dropped = size_t(double(sq.size()) * share);
  std::nth_element(sq.begin(), sq.end() - ptrdiff_t(dropped), sq.end());
  double diff = 0;
  for (size_t i = 0; i + dropped < sq.size(); ++i) diff += sq[i];
  return std::sqrt(diff / std::max(norm, 1e-30));
}

// ||a - b|| / ||b||.
double relative_gap(const std::vector<float>& a, const std::vector<float>& b) { return trimmed_relative_gap(a, b, 0); }

// An Adam-family comparison: the share of weights it leaves out, its bound on the rest (between
// the thrown run's 8.8e-5 and the missing decay's 5.2e-3), and on each loss (a thrown unit moved
// one by 2e-5 relative).
constexpr double kAdamKinkShare = 0.01, kAdamWeightTolerance = 5e-4, kAdamLossTolerance = 1e-4;

struct Case {
  models::ModelSpec spec;
  OptimizerConfig optimizer{Optimizer::Sgd, 0.05, 0.9, 1e-3};
  int epochs = 2;
  int64_t local_steps = 0;
  double mu = 0;
  bool given_anchor = false;
  AugmentSettings augment;
};

// Members of 37, 50, 16, 5 and 1 samples (trailing batches of every size, one job of a single
// batch), each from its own starting weights and seed.
void expect_fused_equals_alone(const Case& c) {
  const data::Dataset d = noise_dataset(c.spec.channels, c.spec.height, c.spec.num_classes, 160);
  const std::vector<int64_t> sizes{37, 50, 16, 5, 1};
  std::vector<data::Indices> trains;
  std::vector<Model> models;
  std::vector<std::vector<float>> anchors;
  int64_t next = 0;
  for (size_t m = 0; m < sizes.size(); ++m) {
    data::Indices idx(static_cast<size_t>(sizes[m]));
    for (auto& i : idx) i = next++ % d.size();
    trains.push_back(idx);
    models.push_back({c.spec, initial_weights(c.spec, 100 + m)});
    anchors.push_back(initial_weights(c.spec, 200 + m));
  }
  const data::Indices none;
  std::vector<FusedJob> fused;
  std::vector<TrainOutcome> alone;
  for (size_t m = 0; m < sizes.size(); ++m) {
    JobInput job{&models[m], &d, &trains[m], &none, 16, c.local_steps, c.optimizer, 1000 + m};
    job.augment = c.augment;
    const std::vector<float>* anchor = c.given_anchor ? &anchors[m] : nullptr;
    std::unique_ptr<LocalWork> work;
    if (c.mu > 0) work = std::make_unique<algorithms::ProximalTraining>(c.epochs, c.mu, anchor);
    else work = std::make_unique<PlainTraining>(c.epochs);
    const auto terms = work->fusible();
    ASSERT_TRUE(terms.has_value());
    fused.push_back({job, *terms});
    alone.push_back(work->run(job));
  }
  const std::vector<TrainOutcome> together = train_fused(fused);
  ASSERT_EQ(together.size(), alone.size());
  const bool adam = c.optimizer.kind == Optimizer::Adam || c.optimizer.kind == Optimizer::AdamW;
  const double loss_tolerance = adam ? kAdamLossTolerance : 1e-5;
  for (size_t m = 0; m < alone.size(); ++m) {
    SCOPED_TRACE(models::spec_label(c.spec) + " member " + std::to_string(m));
    EXPECT_EQ(together[m].steps, alone[m].steps);
    EXPECT_EQ(together[m].epochs, alone[m].epochs);
    ASSERT_EQ(together[m].weights.size(), alone[m].weights.size());
    EXPECT_LT(trimmed_relative_gap(together[m].weights, alone[m].weights, adam ? kAdamKinkShare : 0),
              adam ? kAdamWeightTolerance : 1e-5);
    ASSERT_EQ(together[m].batch_losses.size(), alone[m].batch_losses.size());
    for (size_t b = 0; b < alone[m].batch_losses.size(); ++b)
      EXPECT_NEAR(together[m].batch_losses[b], alone[m].batch_losses[b],
                  loss_tolerance * std::max(1.0, alone[m].batch_losses[b]));
    EXPECT_NEAR(together[m].mean_loss, alone[m].mean_loss, loss_tolerance * std::max(1.0, alone[m].mean_loss));
    // The job really trained: a test that compared two untouched models could not fail.
    EXPECT_GT(relative_gap(alone[m].weights, models[m].weights), 1e-4);
  }
}

const models::ModelSpec kCnn{"cnn", 1, 28, 28, 10}, kCnnBn{"cnn_bn", 1, 28, 28, 10}, kLenet{"lenet5", 1, 28, 28, 10},
    kMlp{"mlp", 1, 28, 28, 10};

TEST(FusedTraining, CnnMembersEndWhereTheirOwnJobsEnd) { expect_fused_equals_alone({kCnn}); }
TEST(FusedTraining, BatchNormStatisticsArePerMemberAndSkipPadding) { expect_fused_equals_alone({kCnnBn}); }
TEST(FusedTraining, Lenet5) { expect_fused_equals_alone({kLenet}); }
TEST(FusedTraining, Mlp) { expect_fused_equals_alone({kMlp}); }
TEST(FusedTraining, NarrowWidthAndColour) {
  models::ModelSpec narrow{"cnn", 3, 16, 16, 4};
  narrow.width_multiplier = 0.5;
  expect_fused_equals_alone({narrow});
}
TEST(FusedTraining, VggFamilyWithBatchNorm) { expect_fused_equals_alone({{"vgg5", 1, 28, 28, 10}, {Optimizer::Sgd, 0.02, 0.9, 0}, 1}); }
TEST(FusedTraining, AdamWithWeightDecay) { expect_fused_equals_alone({kCnnBn, {Optimizer::Adam, 1e-3, 0, 1e-4}}); }
TEST(FusedTraining, AdamWWithDecoupledWeightDecay) { expect_fused_equals_alone({kCnn, {Optimizer::AdamW, 1e-3, 0, 0.5}}); }
// The trimmed comparison of the Adam cases still fails a member whose decoupled decay is left out
// or coupled: each moves every weight, not a share of them.
TEST(FusedTraining, TrimmedGapStillSeesAMissingDecay) {
  const data::Dataset d = noise_dataset(1, 28, 10, 160);
  data::Indices train(37);
  for (size_t i = 0; i < train.size(); ++i) train[i] = int64_t(i);
  const data::Indices none;
  auto trained = [&](Optimizer kind, double decay) {
    Model model{kCnn, initial_weights(kCnn, 100)};
    JobInput job{&model, &d, &train, &none, 16, 0, {kind, 1e-3, 0, decay}, 1000};
    return PlainTraining(2).run(job).weights;
  };
  const std::vector<float> adamw = trained(Optimizer::AdamW, 0.5);
  EXPECT_GT(trimmed_relative_gap(trained(Optimizer::AdamW, 0), adamw, kAdamKinkShare), 2 * kAdamWeightTolerance);
  EXPECT_GT(trimmed_relative_gap(trained(Optimizer::Adam, 0.5), adamw, kAdamKinkShare), 2 * kAdamWeightTolerance);
}
TEST(FusedTraining, PlainSgdWithoutMomentum) { expect_fused_equals_alone({kMlp, {Optimizer::Sgd, 0.1, 0, 0}, 3}); }
TEST(FusedTraining, JobsSizedInStepsStopAtTheirStep) { expect_fused_equals_alone({kCnn, {Optimizer::Sgd, 0.05, 0.9, 0}, 1, 7}); }
TEST(FusedTraining, ProximalTermAnchoredAtTheStart) { expect_fused_equals_alone({kLenet, {Optimizer::Sgd, 0.05, 0.9, 0}, 2, 0, 0.5}); }
TEST(FusedTraining, ProximalTermAnchoredAtAGivenModel) {
  expect_fused_equals_alone({kCnnBn, {Optimizer::Sgd, 0.05, 0.9, 0}, 2, 0, 0.5, true});
}

TEST(FusedTraining, MembersAugmentAsTheirOwnJobsDo) {
  Case c{kCnnBn};
  c.augment = {true, 15, 0.1, 0.9, 1.1};
  expect_fused_equals_alone(c);
}

TEST(FusedTraining, RefusesJobsOfDifferentKeys) {
  const data::Dataset d = noise_dataset(1, 28, 10, 20);
  const data::Indices idx{0, 1, 2}, none;
  const Model a{kCnn, initial_weights(kCnn, 1)}, b{kMlp, initial_weights(kMlp, 1)};
  const JobInput ja{&a, &d, &idx, &none, 16, 0, {}, 1}, jb{&b, &d, &idx, &none, 16, 0, {}, 2};
  EXPECT_NE(fuse_key(ja, {1}), fuse_key(jb, {1}));
  EXPECT_NE(fuse_key(ja, {1}), fuse_key(ja, {2}));
  EXPECT_NE(fuse_key(ja, {1}), fuse_key(ja, {1, 0.1}));
  EXPECT_THROW(train_fused({{ja, {1}}, {jb, {1}}}), std::logic_error);
}

TEST(FusedTraining, WhatFuses) {
  EXPECT_TRUE(fusible_arch(kCnn));
  EXPECT_TRUE(fusible_arch(kCnnBn));
  EXPECT_TRUE(fusible_arch(kLenet));
  EXPECT_TRUE(fusible_arch(kMlp));
  EXPECT_FALSE(fusible_arch({"resnet18", 3, 32, 32, 10}));
  // Plain and proximal training fuse; a subclass that changes a hook does not.
  struct Probe : PlainTraining {
    using PlainTraining::PlainTraining;
  };
  EXPECT_TRUE(PlainTraining(1).fusible().has_value());
  EXPECT_FALSE(Probe(1).fusible().has_value());
  EXPECT_DOUBLE_EQ(algorithms::ProximalTraining(2, 0.25).fusible()->proximal_mu, 0.25);
  EXPECT_EQ(fuse_limit_of({FuseMode::Off, 0}, ComputeDevice::Cuda), 0);
  EXPECT_EQ(fuse_limit_of({FuseMode::Count, 12}, ComputeDevice::Cpu), 12);
  EXPECT_EQ(fuse_limit_of({FuseMode::Auto, 0}, ComputeDevice::Cpu), fuse_auto_limit(ComputeDevice::Cpu));
  EXPECT_GT(fuse_auto_limit(ComputeDevice::Cuda), 1);
}

// The queue holds fusible jobs until one is waited for, then trains them in groups of at most
// the limit; a job alone in its group, or one that cannot fuse, trains as its own job would.
TEST(TrainingQueue, HoldsUntilWaitedAndFusesInGroupsOfTheLimit) {
  const data::Dataset d = noise_dataset(1, 28, 10, 100);
  std::vector<data::Indices> trains(5, data::Indices{});
  for (size_t m = 0; m < trains.size(); ++m)
    for (int i = 0; i < 20 + int(m); ++i) trains[m].push_back(int64_t(m) * 10 + i);
  const data::Indices none;
  std::vector<Model> models;
  for (size_t m = 0; m < trains.size(); ++m) models.push_back({kMlp, initial_weights(kMlp, 7 + m)});
  init_torch_worker(1);  // this thread runs the jobs alone below: the same intra-op threads as the workers
  Executor executor(2, [] { init_torch_worker(1); });
  BusyClock busy;
  TrainingQueue queue(executor, busy, 2);
  PlainTraining plain(1);
  std::vector<JobInput> jobs;
  std::vector<TrainingQueue::Ticket> tickets;
  for (size_t m = 0; m < trains.size(); ++m) {
    jobs.push_back({&models[m], &d, &trains[m], &none, 8, 0, {Optimizer::Sgd, 0.05, 0.9, 0}, 50 + m});
    tickets.push_back(queue.submit(plain, jobs.back()));
  }
  EXPECT_EQ(queue.fused_jobs(), 0);  // held, nothing launched
  queue.launch(tickets[3]);
  for (size_t m = 0; m < tickets.size(); ++m) {
    const TrainOutcome out = tickets[m].result.get();
    const TrainOutcome own = plain.run(jobs[m]);
    EXPECT_LT(relative_gap(out.weights, own.weights), 1e-5) << "job " << m;
    if (m == 4) EXPECT_EQ(out.weights, own.weights);  // the fifth alone in its group of the limit 2
  }
  EXPECT_EQ(queue.fused_jobs(), 2);
  EXPECT_EQ(queue.fused_members(), 4);
}

}  // namespace
}  // namespace fedgrid

// The controls of CarPe-FL's comparison (algorithms/carpefl/README.md): under
// `algorithm.encoder: shared` every hospital holds one encoder while each cluster keeps its own
// graph module; fedcsl_inspired differs from carpefl only in the injection (the same clusters,
// the same encoder sharing); carpefl trains at the engine's rate for the round, with no decay of
// its own on top of training.lr_schedule.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "algorithms/carpefl/causal_jobs.hpp"
#include "data/rng.hpp"
#include "models/causal_layout.hpp"
#include "sim/engine/state_file.hpp"
#include "sim/jobs/compute.hpp"
#include "tests/carpefl_scenario.hpp"
#include "tests/helpers.hpp"

namespace fedgrid::carpefl {
namespace {

// Three hospitals on small synthetic images, the carpefl network, a checkpoint after every
// round (what the algorithm keeps: each hospital's network and its cluster).
std::string three(const std::string& algorithm) {
  return test::carpefl_three("carpefl-controls", R"(training: {optimizer: adamw, lr: 0.002, weight_decay: 0.01, batch_size: 32}
algorithm: )" + algorithm + R"(
stop: {rounds: 2}
output: {trace: false, checkpoint_every: 1}
)");
}

struct KeptState {
  std::vector<std::vector<float>> personal;  // each hospital's network after a round's averaging
  std::vector<int64_t> cluster;
  models::CausalNetParts parts;  // where each part lies in the network (its head: the data's classes)
};

// Round 1 refreshes the structure and round 2 does not (refresh_every: 2), so the clusters kept
// in the checkpoint are round 1's.
KeptState kept_state(const std::string& dir) {
  const StateReader r(dir + "/checkpoint.bin");
  KeptState k;
  for (int64_t i = 0; i < r.integer("algorithm.personal.count"); ++i)
    k.personal.push_back(r.model("algorithm.personal." + std::to_string(i)).weights);
  k.cluster = r.integers("algorithm.cluster");
  k.parts = models::causal_net_parts(r.model("algorithm.personal.0").spec);
  return k;
}

std::string run(const std::string& tag, const std::string& algorithm) { return test::run_ok(tag, three(algorithm)); }

std::vector<float> slice(const std::vector<float>& w, models::StateRange r) {
  return {w.begin() + r.offset, w.begin() + r.offset + r.size};
}

TEST(CarpeflControls, SharedEncoderIsOneAcrossClustersAndTheGraphModuleIsPerCluster) {
  // Three singleton clusters (clusters: 3): per cluster, nothing would be shared.
  const KeptState shared = kept_state(
      run("carpefl-shared-encoder", "{name: carpefl, refresh_every: 2, clusters: 3, encoder: shared}"));
  const KeptState apart = kept_state(
      run("carpefl-cluster-encoder", "{name: carpefl, refresh_every: 2, clusters: 3}"));
  ASSERT_EQ(shared.personal.size(), 3u);
  const models::CausalNetParts& parts = shared.parts;
  EXPECT_EQ(shared.cluster, (std::vector<int64_t>{0, 1, 2}));
  for (size_t i = 1; i < 3; ++i) {
    EXPECT_EQ(slice(shared.personal[i], parts.encoder), slice(shared.personal[0], parts.encoder)) << i;
    EXPECT_NE(slice(shared.personal[i], parts.graph), slice(shared.personal[0], parts.graph)) << i;
    EXPECT_NE(slice(shared.personal[i], parts.head), slice(shared.personal[0], parts.head)) << i;
    // The per-cluster reading shares nothing between singleton clusters.
    EXPECT_NE(slice(apart.personal[i], parts.encoder), slice(apart.personal[0], parts.encoder)) << i;
  }
}

// Round 1's structure comes from the same statistics (both start from the same model), so the
// two algorithms cluster alike; what differs is what is written into the network: carpefl's
// backbone and confidences, fedcsl_inspired's complete graph with every gate 1.
TEST(CarpeflControls, FedCslInspiredDiffersOnlyInTheInjection) {
  for (const std::string encoder : {"per_cluster", "shared"}) {
    SCOPED_TRACE(encoder);
    const std::string keys = "refresh_every: 2, merge_shd: 0, encoder: " + encoder + "}";
    const KeptState carpe = kept_state(run("carpefl-inject-" + encoder, "{name: carpefl, " + keys));
    const KeptState csl =
        kept_state(run("fedcsl-inject-" + encoder, "{name: fedcsl_inspired, " + keys));
    EXPECT_EQ(csl.cluster, carpe.cluster);
    EXPECT_GT(std::set<int64_t>(carpe.cluster.begin(), carpe.cluster.end()).size(), 1u)
        << "one cluster would not tell the readings apart";
    // The encoder is one wherever carpefl's is one: within a cluster, or everywhere (shared).
    for (const KeptState* k : {&carpe, &csl})
      for (size_t i = 0; i < 3; ++i)
        for (size_t j = 0; j < 3; ++j) {
          const bool together = encoder == "shared" || k->cluster[i] == k->cluster[j];
          EXPECT_EQ(slice(k->personal[i], k->parts.encoder) == slice(k->personal[j], k->parts.encoder), together)
              << (k == &carpe ? "carpefl " : "fedcsl_inspired ") << i << " " << j;
        }
    const int64_t d = models::kCausalNet.latents;
    const models::CausalNetParts& parts = carpe.parts;
    for (size_t i = 0; i < 3; ++i) {
      const auto csl_backbone = slice(csl.personal[i], parts.backbone);
      for (int64_t u = 0; u < d; ++u)
        for (int64_t v = 0; v < d; ++v) EXPECT_EQ(csl_backbone[size_t(u * d + v)], u != v ? 1.0f : 0.0f);
      EXPECT_NE(slice(carpe.personal[i], parts.backbone), csl_backbone) << i;
      EXPECT_EQ(csl.personal[i][size_t(parts.balance.offset)], 1.0f);
      EXPECT_EQ(carpe.personal[i][size_t(parts.balance.offset)], 0.5f);
    }
  }
}

// AdamW's first step moves a parameter by lr g / (|g| + eps): the largest move is the rate the
// job trains at, which must be the job's own (the engine's value for the round), not a fraction.
TEST(CarpeflControls, LocalTrainingStepsAtTheJobsRate) {
  const models::ModelSpec spec{"carpefl", 1, 16, 16, 3};
  data::Dataset d;
  d.shape = {1, 16, 16};
  d.num_classes = 3;
  Rng rng(7);
  for (int i = 0; i < 32; ++i) {
    for (int p = 0; p < 16 * 16; ++p) d.images.push_back(float(rng.normal()));
    d.labels.push_back(i % 3);
  }
  data::Indices all(32), none;
  for (int64_t i = 0; i < 32; ++i) all[size_t(i)] = i;
  const Model start{spec, initial_weights(spec, 3)};
  for (const double lr : {0.004, 0.0005}) {
    const JobInput job{&start, &d, &all, &none, 32, 0, {Optimizer::AdamW, lr, 0, 0}, 11};
    const TrainOutcome out = CausalTraining(1, 0.01).run(job);
    double largest = 0;
    for (size_t k = 0; k < out.weights.size(); ++k)
      largest = std::max(largest, std::abs(double(out.weights[k]) - double(start.weights[k])));
    EXPECT_NEAR(largest, lr, 1e-3 * lr) << lr;
  }
}

// A constant schedule trains every round at training.lr whatever stop.rounds is, so a run's
// first rounds do not depend on how many follow (a decay of carpefl's own over stop.rounds, on
// top of the engine's schedule, made them depend on it).
TEST(CarpeflControls, NoDecayOfItsOwnOnTopOfTheSchedule) {
  const std::string keys = "{name: carpefl, refresh_every: 2}";
  const std::string two = test::run_ok("carpefl-rate-2", three(keys), "--set stop.rounds=2 --set output.checkpoint_every=0");
  const std::string five = test::run_ok("carpefl-rate-5", three(keys), "--set stop.rounds=5 --set output.checkpoint_every=0");
  const auto short_rows = test::lines(test::read_file(two + "/rounds.csv"));
  const auto long_rows = test::lines(test::read_file(five + "/rounds.csv"));
  ASSERT_EQ(short_rows.size(), 3u);
  ASSERT_EQ(long_rows.size(), 6u);
  for (size_t r = 0; r < 3; ++r) EXPECT_EQ(short_rows[r], long_rows[r]) << "row " << r;
}

}  // namespace
}  // namespace fedgrid::carpefl

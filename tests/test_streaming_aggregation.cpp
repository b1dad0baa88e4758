// Streaming aggregation (sim/jobs/deferred_training.hpp): updates whose training waits for the
// server's average give the bytes held updates give, their jobs start in update order, and no
// more than ahead() + 1 of them hold weights at once.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <stdexcept>

#include "algorithms/aggregation.hpp"
#include "sim/jobs/deferred_training.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

const models::ModelSpec kSpec{"mlp", 1, 4, 4, 2};

// A deferred job that "trains" by handing back fixed weights, and logs what the fold asks of it.
struct Log {
  std::vector<int> started, finished;
  int holding = 0, most_held = 0;  // started, not yet folded
};

class FakeJob : public DeferredTraining {
 public:
  FakeJob(Update held, Log& log, int ahead) : held_(std::move(held)), log_(log), ahead_(ahead) {}
  void start() override {
    log_.started.push_back(held_.hospital);
    log_.most_held = std::max(log_.most_held, ++log_.holding);
  }
  Update finish() override {
    log_.finished.push_back(held_.hospital);
    --log_.holding;
    return held_;
  }
  int ahead() const override { return ahead_; }

 private:
  Update held_;
  Log& log_;
  int ahead_;
};

std::vector<Update> random_updates(int count, size_t values, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> weight(0.f, 1.f);
  std::uniform_int_distribution<int64_t> samples(1, 5000);
  std::vector<Update> out;
  for (int h = 0; h < count; ++h) {
    std::vector<float> w(values);
    for (auto& v : w) v = weight(rng);
    out.push_back({h, Model{kSpec, std::move(w)}, samples(rng), 1, 0.0, {}, {}});
  }
  return out;
}

// The same updates with their weights behind deferred jobs (every `every`-th one; the rest held).
std::vector<Update> deferred(const std::vector<Update>& held, Log& log, int ahead, int every = 1) {
  std::vector<Update> out;
  for (const auto& u : held) {
    Update d = u;
    if (u.hospital % every == 0) {
      d.model = shape_only_model(u.model.spec, u.model.values());
      d.deferred = std::make_shared<FakeJob>(u, log, ahead);
    }
    out.push_back(std::move(d));
  }
  return out;
}

bool same_bytes(const Model& a, const Model& b) {
  return a.weights.size() == b.weights.size() &&
         std::memcmp(a.weights.data(), b.weights.data(), a.weights.size() * sizeof(float)) == 0;
}

TEST(StreamingAggregation, DeferredUpdatesAverageToTheHeldBytes) {
  const auto held = random_updates(40, 257, 11);
  Log log;
  const Model expected = algorithms::weighted_average(held);
  const Model streamed = algorithms::weighted_average(deferred(held, log, 3));
  EXPECT_TRUE(same_bytes(expected, streamed));
}

// Where the order of the sum decides the result (a large value and its negative around a small
// one), the streamed average is the in-order one: 1e20/3 - 1e20/3 + 1/3, not 1/3 - 1e20/3 + 1e20/3.
TEST(StreamingAggregation, TheSumKeepsTheUpdatesOrder) {
  std::vector<Update> held;
  for (float v : {1e20f, -1e20f, 1.f}) held.push_back({int(held.size()), Model{kSpec, {v}}, 1, 1, 0.0, {}, {}});
  Log log;
  EXPECT_FLOAT_EQ(algorithms::weighted_average(deferred(held, log, 1)).weights[0], 1.f / 3);
  std::reverse(held.begin(), held.end());
  EXPECT_EQ(algorithms::weighted_average(held).weights[0], 0.f);  // the order does matter
}

TEST(StreamingAggregation, JobsStartInOrderAndAFewHoldWeightsAtOnce) {
  const auto held = random_updates(25, 8, 5);
  for (int ahead : {1, 2, 6}) {
    Log log;
    algorithms::weighted_average(deferred(held, log, ahead));
    std::vector<int> order(held.size());
    std::iota(order.begin(), order.end(), 0);
    EXPECT_EQ(log.started, order);
    EXPECT_EQ(log.finished, order);
    EXPECT_EQ(log.most_held, ahead + 1) << "ahead " << ahead;
  }
}

TEST(StreamingAggregation, HeldAndDeferredUpdatesMix) {
  const auto held = random_updates(12, 33, 3);
  Log log;
  EXPECT_TRUE(same_bytes(algorithms::weighted_average(held), algorithms::weighted_average(deferred(held, log, 2, 3))));
  EXPECT_EQ(log.finished, (std::vector<int>{0, 3, 6, 9}));
}

// A fold that fails leaves no job running behind it: the ones started ahead are waited for
// before the error goes on (their model and data may be freed as it unwinds).
TEST(StreamingAggregation, AFailedFoldWaitsForTheJobsStartedAhead) {
  const auto held = random_updates(10, 4, 9);
  Log log;
  const auto updates = deferred(held, log, 3);
  EXPECT_THROW(for_each_trained(updates,
                                [](const Update& u) {
                                  if (u.hospital == 2) throw std::runtime_error("fold failed");
                                }),
               std::runtime_error);
  EXPECT_EQ(log.started, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(log.holding, 0);
}

// A whole run: FedAvg's jobs run at aggregation (perf.json counts them), and its outputs are
// those of held updates (a deadline no one misses puts every job under a fault guard, where
// train_later trains at once). Three tiers, so uploads arrive out of hospital order.
TEST(StreamingAggregation, FedAvgRunsGiveTheHeldUpdatesOutputs) {
  const std::string dir = test::temp_dir("streaming");
  test::write_file(dir + "/s.yaml", test::tiny_scenario("streaming"));
  const std::string run = "run " + dir + "/s.yaml --set data.synthetic.noise=4 --out " + dir;
  const auto streamed = test::run_fedgrid(run + "/a");
  const auto held = test::run_fedgrid(run + "/b --set faults.deadline_s=1e6");
  ASSERT_EQ(streamed.exit_code, 0) << streamed.output;
  ASSERT_EQ(held.exit_code, 0) << held.output;
  for (const char* f : {"rounds.csv", "hospitals.csv", "events.csv"})
    EXPECT_EQ(test::read_file(dir + "/a/" + f), test::read_file(dir + "/b/" + f)) << f;
  const std::string perf_a = test::read_file(dir + "/a/perf.json"), perf_b = test::read_file(dir + "/b/perf.json");
  EXPECT_NE(perf_a.find("\"training_jobs_run_at_aggregation\": 18.0"), std::string::npos) << perf_a;
  EXPECT_NE(perf_b.find("\"training_jobs_run_at_aggregation\": 0.0"), std::string::npos) << perf_b;
}

}  // namespace
}  // namespace fedgrid

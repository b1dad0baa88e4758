// InclusiveFL (Liu et al. 2022): which tensors of a VGG depth belong to which layer, the depth
// family check, the server's layer-wise step on a hand example (group means, momentum
// distillation, cross-depth averages), what travels, determinism and bad models.
#include <gtest/gtest.h>

#include <set>

#include "algorithms/inclusivefl/depth_family.hpp"
#include "algorithms/inclusivefl/layerwise_aggregation.hpp"
#include "models/model_spec.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

using algorithms::inclusivefl::check_depth_family;
using algorithms::inclusivefl::depth_layers;
using algorithms::inclusivefl::DepthGroup;
using algorithms::inclusivefl::DepthLayers;
using algorithms::inclusivefl::layerwise_aggregate;
using test::lines;
using test::read_file;

models::ModelSpec vgg(const char* arch) { return {.arch = arch, .width_multiplier = 0.125}; }

TEST(InclusiveFl, DepthLayersCoverTheStateLayerByLayer) {
  const DepthLayers five = depth_layers(vgg("vgg5")), nine = depth_layers(vgg("vgg9"));
  EXPECT_EQ(five.convs, 3);
  EXPECT_EQ(nine.convs, 7);
  // 4 parameter tensors and 3 buffers per conv layer, weight and bias per fc layer.
  EXPECT_EQ(five.tensors.size(), 3u * 7 + 4);
  int64_t next = 0;
  for (const auto& t : five.tensors) {
    EXPECT_EQ(t.offset, next);
    next += t.numel;
  }
  EXPECT_EQ(next, models::model_cost(vgg("vgg5")).state_values);
  // Conv layer 3 (the top, 8 -> 8 channels at width 1/8): 3x3 weight, bias, BN weight and bias,
  // running mean and var, the batch counter.
  std::vector<int64_t> sizes;
  for (const auto* t : five.layer_tensors(2)) sizes.push_back(t->numel);
  EXPECT_EQ(sizes, (std::vector<int64_t>{8 * 8 * 9, 8, 8, 8, 8, 8, 1}));
  // The same layer sits at the same place among the parameters of both depths, not among the
  // buffers (the deeper model has more parameters before them).
  EXPECT_EQ(five.layer_tensors(1)[0]->offset, nine.layer_tensors(1)[0]->offset);
  EXPECT_LT(five.layer_tensors(1)[4]->offset, nine.layer_tensors(1)[4]->offset);
  EXPECT_THROW(depth_layers({.arch = "cnn"}), std::invalid_argument);
}

TEST(InclusiveFl, DepthFamilyCheck) {
  EXPECT_NO_THROW(check_depth_family({vgg("vgg5"), vgg("vgg7"), vgg("vgg9")}));
  EXPECT_NO_THROW(check_depth_family({vgg("vgg5"), vgg("vgg9")}));
  // vgg8's second conv layer is 32 -> 32, vgg5's 32 -> 64.
  EXPECT_THROW(check_depth_family({vgg("vgg5"), vgg("vgg8")}), std::invalid_argument);
  EXPECT_THROW(check_depth_family({vgg("vgg7"), {.arch = "vgg7", .width_multiplier = 0.25}}), std::invalid_argument);
  // Widths must agree for the layers to be shared.
  EXPECT_THROW(check_depth_family({vgg("vgg5"), {.arch = "vgg9", .width_multiplier = 0.25}}), std::invalid_argument);
}

// A model of `spec` whose every value is `value(layer)` (the fc head: layer -1).
template <class F>
Model filled(const models::ModelSpec& spec, F value) {
  const DepthLayers layers = depth_layers(spec);
  Model m{spec, std::vector<float>(size_t(models::model_cost(spec).state_values)), 0};
  for (const auto& t : layers.tensors)
    std::fill_n(m.weights.begin() + t.offset, t.numel, float(value(t.layer)));
  return m;
}

// Every value of `m`'s layer `layer`.
std::set<float> layer_values(const Model& m, int layer) {
  std::set<float> out;
  for (const auto& t : depth_layers(m.spec).tensors)
    if (t.layer == layer) out.insert(m.weights.begin() + t.offset, m.weights.begin() + t.offset + t.numel);
  return out;
}

// vgg5 (convs 0-2, top 2) and vgg7 (convs 0-4, top 4) from zero. vgg5's two hospitals move
// every value by 1 and 3 (samples 10, 30: mean 2.5, n 40); vgg7's hospital (samples 60) moves
// conv layer l by 10 (l + 1) and the head by 1000. By hand, beta 0.5:
//   vgg5 top (2): 0.5 * 2.5 + 0.5 * mean(30, 40, 50) = 21.25;   head: 2.5
//   layers 0, 1 in both (below both tops): (40 * 2.5 + 60 * 10 (l + 1)) / 100 = 7, 13
//   vgg7 layers 2, 3: vgg7 alone holds them below its top: 30, 40; top 4: 50; head: 1000
TEST(InclusiveFl, LayerwiseStepByHand) {
  const Model five = filled(vgg("vgg5"), [](int) { return 0.0; }), seven = filled(vgg("vgg7"), [](int) { return 0.0; });
  const DepthLayers five_layers = depth_layers(five.spec), seven_layers = depth_layers(seven.spec);
  auto update = [](Model m, int64_t samples) { return Update{.hospital = 0, .model = std::move(m), .samples = samples}; };
  const Update a = update(filled(five.spec, [](int) { return 1.0; }), 10);
  const Update b = update(filled(five.spec, [](int) { return 3.0; }), 30);
  const Update c = update(filled(seven.spec, [](int l) { return l < 0 ? 1000.0 : 10.0 * (l + 1); }), 60);
  const std::vector<DepthGroup> groups = {{&five, &five_layers, {&a, &b}}, {&seven, &seven_layers, {&c}}};

  const auto step = layerwise_aggregate(groups, 0.5);
  ASSERT_EQ(step.size(), 2u);
  const Model &new_five = step[0], &new_seven = step[1];
  EXPECT_EQ(layer_values(new_five, 2), (std::set<float>{21.25f}));
  EXPECT_EQ(layer_values(new_five, -1), (std::set<float>{2.5f}));
  for (const Model* m : {&new_five, &new_seven}) {
    EXPECT_EQ(layer_values(*m, 0), (std::set<float>{7.0f}));
    EXPECT_EQ(layer_values(*m, 1), (std::set<float>{13.0f}));
  }
  EXPECT_EQ(layer_values(new_seven, 2), (std::set<float>{30.0f}));
  EXPECT_EQ(layer_values(new_seven, 3), (std::set<float>{40.0f}));
  EXPECT_EQ(layer_values(new_seven, 4), (std::set<float>{50.0f}));
  EXPECT_EQ(layer_values(new_seven, -1), (std::set<float>{1000.0f}));
  // Charged: 2 per value per update; vgg5's top layer (8 x 8 x 9 + 8 + 8 + 8 + 8 + 8 + 1 = 617
  // values) x (3 sources + 3); layers 0 and 1 (1 x 4 x 9 + 4 x 5 + 1 = 57 and 4 x 8 x 9 + 8 x 5 + 1
  // = 329 values) x 2 holders x 2 in both depths; vgg7's layers 2, 3 (617 each) x 1 holder x 2.
  const double flops = 2.0 * double(2 * five.weights.size() + seven.weights.size()) + 617 * 6 +
                       2 * (57 + 329) * 2 * 2 + 2 * 617 * 2;
  EXPECT_DOUBLE_EQ(algorithms::inclusivefl::layerwise_flops(groups), flops);

  // beta 0: no distillation, the top layer keeps its depth's own mean.
  EXPECT_EQ(layer_values(layerwise_aggregate(groups, 0.0)[0], 2), (std::set<float>{2.5f}));
  // vgg7 lost this round: vgg5 keeps its own update everywhere, vgg7 moves only where vgg5 shares.
  const std::vector<DepthGroup> lost = {{&five, &five_layers, {&a, &b}}, {&seven, &seven_layers, {}}};
  const auto partial = layerwise_aggregate(lost, 0.5);
  EXPECT_EQ(layer_values(partial[0], 2), (std::set<float>{2.5f}));
  EXPECT_EQ(layer_values(partial[1], 1), (std::set<float>{2.5f}));
  EXPECT_EQ(layer_values(partial[1], 2), (std::set<float>{0.0f}));
  EXPECT_EQ(layer_values(partial[1], -1), (std::set<float>{0.0f}));
}

std::string depths(const std::string& extra = "") {
  return R"(name: inc
seed: 3
platform:
  hospitals:
    - {count: 2, tier: weak}
    - {count: 1, tier: medium}
    - {count: 1, tier: strong}
data:
  dataset: synthetic
  partition: {scheme: dirichlet, beta: 1.0}
  synthetic: {train_samples: 320, test_samples: 80}
model: {arch: vgg9, width_multiplier: 0.125, weak: {arch: vgg5, width_multiplier: 0.125}, medium: {arch: vgg7, width_multiplier: 0.125}}
training: {batch_size: 32}
algorithm: {name: inclusivefl}
stop: {rounds: 3}
timing: {network: cm02}
output: {trace: false}
)" + extra;
}

// Each hospital sends and receives its own depth's whole model, every round; the server's step
// is charged.
TEST(InclusiveFl, EachDepthsModelTravelsEveryRound) {
  const std::string out = test::run_ok("incl-bytes", depths(), "--log-level warn");
  const int64_t round_bytes = 2 * models::payload_bytes(models::model_cost(vgg("vgg5"))) +
                              models::payload_bytes(models::model_cost(vgg("vgg7"))) +
                              models::payload_bytes(models::model_cost(vgg("vgg9")));
  const auto rounds = lines(read_file(out + "/rounds.csv"));
  ASSERT_EQ(rounds.size(), 4u);
  for (size_t r = 1; r < rounds.size(); ++r) {
    const auto c = test::cells(rounds[r]);
    EXPECT_EQ(std::stoll(c[4]), round_bytes) << rounds[r];  // bytes_up
    EXPECT_EQ(std::stoll(c[5]), round_bytes) << rounds[r];  // bytes_down
  }
  int server = 0;
  for (const auto& e : lines(read_file(out + "/events.csv"))) {
    const auto c = test::cells(e);
    server += c.size() > 3 && c[3] == "server";
  }
  EXPECT_EQ(server, 3);
}

TEST(InclusiveFl, ByteIdenticalAcrossRunsAndWorkers) {
  const std::string one = test::run_ok("incl-det-1", depths(), "--log-level warn --set training.workers=1");
  const std::string again = test::run_ok("incl-det-1b", depths(), "--log-level warn --set training.workers=1");
  const std::string two = test::run_ok("incl-det-2", depths(), "--log-level warn --set training.workers=2");
  for (const char* f : {"rounds.csv", "hospitals.csv", "events.csv", "summary.json"}) {
    EXPECT_EQ(read_file(one + "/" + f), read_file(again + "/" + f)) << f;
    EXPECT_EQ(read_file(one + "/" + f), read_file(two + "/" + f)) << f;
  }
}

// The server step is charged from shapes: a timing-only run keeps the real run's clock.
TEST(InclusiveFl, TimingOnlyRunKeepsTheClock) {
  const std::string real = test::run_ok("incl-real", depths(), "--log-level warn");
  const std::string timing = test::run_ok("incl-timing", depths(), "--log-level warn --set training.mode=timing-only");
  auto clock = [](const std::string& out) {
    std::vector<std::string> times;
    for (const auto& row : lines(read_file(out + "/rounds.csv"))) times.push_back(test::cells(row)[1]);
    return times;
  };
  EXPECT_EQ(clock(real), clock(timing));
}

// Killed after round 3 and resumed from the round-2 checkpoint (every depth's model): the
// uninterrupted run's bytes.
TEST(InclusiveFl, AResumedRunGivesTheSameBytes) {
  const std::string dir = test::temp_dir("incl-resume");
  test::write_file(dir + "/s.yaml", depths());
  test::expect_resume_gives_same_bytes(dir, "--log-level warn --set stop.rounds=4 --set output.checkpoint_every=2");
}

TEST(InclusiveFl, ModelsOutsideOneDepthFamilyAreInputErrors) {
  test::expect_run_input_error("incl-vgg8", depths(), "--set model.medium=vgg8", "bottom of the deeper one");
  test::expect_run_input_error("incl-cnn", depths(), "--set model.weak=cnn", "not VGG-style");
  test::expect_run_input_error("incl-beta", depths(), "--set algorithm.momentum_beta=1.5", "algorithm.momentum_beta");
}

}  // namespace
}  // namespace fedgrid

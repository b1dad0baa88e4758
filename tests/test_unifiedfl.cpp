// UnifiedFL (Pala & Rekik 2025): the modulation and its fold on a hand example, the grouping
// shared across architectures, Theta's initial value against the native network, the two-tier
// schedule, what travels, determinism, and the variant that reclusters on Theta updates (Ward
// linkage and silhouettes: test_clustering.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "algorithms/unifiedfl/modulation.hpp"
#include "algorithms/unifiedfl/theta.hpp"
#include "models/model_spec.hpp"
#include "models/nets.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

using test::cells;
using test::lines;
using test::read_file;
using unifiedfl::ThetaLayout;

// A network of one 2x2 linear layer with bias.
struct TwoByTwo : models::Net {
  torch::nn::Linear fc{nullptr};
  TwoByTwo() {
    fc = register_module("fc", torch::nn::Linear(2, 2));
    classifier = fc;
  }
  torch::Tensor run(torch::Tensor x, std::vector<torch::Tensor>*) override { return fc(x); }
};

TEST(UnifiedFl, ModulationOfATensorByHand) {
  // k_e = 2, k_b = 1: edge scale (2, 0.5), edge shift (0, 1), node scale 1, node shift 0, s_e 1.5.
  const ThetaLayout l{2, 1};
  const torch::Tensor theta = torch::tensor({2.0f, 0.5f, 0.0f, 1.0f, 1.0f, 0.0f, 1.5f, 1.0f});
  const torch::Tensor w = torch::tensor({0.5f, -1.0f, 2.0f, 0.0f}).view({2, 2});
  const torch::Tensor groups = torch::tensor({0, 1, 1, 0}, torch::kInt64);
  // z = (1, 0.5, 2, 0); 1.5 z / (1.5 + |z|) = (0.6, 0.375, 6/7, 0).
  const torch::Tensor got = unifiedfl::modulate(w, groups, true, theta, l);
  const std::vector<float> want{0.6f, 0.375f, 6.0f / 7.0f, 0.0f};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(got.view(-1)[i].item<float>(), want[size_t(i)], 1e-6) << i;
  EXPECT_NEAR(unifiedfl::modulate(2.0, 0.5, 1.0, 1.5), 6.0 / 7.0, 1e-12);
}

TEST(UnifiedFl, ModulateThenFoldA2x2LayerByHand) {
  TwoByTwo net;
  torch::NoGradGuard init;
  net.fc->weight.copy_(torch::tensor({0.5f, -1.0f, 2.0f, 0.0f}).view({2, 2}));
  net.fc->bias.copy_(torch::tensor({0.2f, -0.4f}));
  // One group of each kind: every weight scaled by 2 and shifted by 0.5, biases untouched
  // before the softsign; s = 1 for both.
  const ThetaLayout l{1, 1};
  const torch::Tensor theta = torch::tensor({2.0f, 0.5f, 1.0f, 0.0f, 1.0f, 1.0f}).set_requires_grad(true);
  // z = (1.5, -1.5, 4.5, 0.5) -> z / (1 + |z|) = (0.6, -0.6, 9/11, 1/3); bias (1/6, -2/7).
  const std::vector<float> w_eff{0.6f, -0.6f, 9.0f / 11.0f, 1.0f / 3.0f}, b_eff{1.0f / 6.0f, -2.0f / 7.0f};
  const torch::Tensor x = torch::tensor({1.0f, 2.0f}).view({1, 2});
  const std::vector<float> y{0.6f - 1.2f + 1.0f / 6.0f, 9.0f / 11.0f + 2.0f / 3.0f - 2.0f / 7.0f};
  {
    unifiedfl::Modulator modulator(net, l, 7);
    EXPECT_FALSE(net.fc->weight.requires_grad());
    torch::Tensor out;
    {
      torch::AutoGradMode grad(true);
      modulator.apply(theta);
      out = net.forward(x);
      out.sum().backward();
    }
    for (int i = 0; i < 2; ++i) EXPECT_NEAR(out[0][i].item<float>(), y[size_t(i)], 1e-6);
    ASSERT_TRUE(theta.grad().defined());  // the loss reaches Theta
    EXPECT_GT(theta.grad().abs().sum().item<float>(), 0);
    for (const auto& p : net.parameters()) EXPECT_FALSE(p.grad().defined());  // and no private weight
    // The forward reads w_eff; the private (registered) weights are untouched until the fold.
    EXPECT_NEAR(net.fc->weight[0][0].item<float>(), 0.6f, 1e-6);
    EXPECT_FLOAT_EQ(net.named_parameters()["fc.weight"][0][0].item<float>(), 0.5f);
    modulator.fold(theta);
  }
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(net.fc->weight.view(-1)[i].item<float>(), w_eff[size_t(i)], 1e-6);
  for (int i = 0; i < 2; ++i) EXPECT_NEAR(net.fc->bias[i].item<float>(), b_eff[size_t(i)], 1e-6);
  EXPECT_TRUE(net.fc->weight.requires_grad());  // restored as found
  // Evaluation uses the folded weights as they are: the same output without Theta.
  const torch::Tensor folded = net.forward(x);
  for (int i = 0; i < 2; ++i) EXPECT_NEAR(folded[0][i].item<float>(), y[size_t(i)], 1e-6);
}

std::vector<unifiedfl::ModulatedTensor> tensors_of(const std::string& arch, const ThetaLayout& l, uint64_t seed,
                                                   std::shared_ptr<models::Net>& keep) {
  keep = models::make_net({.arch = arch});
  return unifiedfl::modulated_tensors(*keep, l, seed);
}

TEST(UnifiedFl, SameKernelKeyInTwoArchitecturesSameGroup) {
  const ThetaLayout l;
  std::shared_ptr<models::Net> cnn_net, lenet_net;
  const auto cnn = tensors_of("cnn", l, 99, cnn_net), lenet = tensors_of("lenet5", l, 99, lenet_net);
  // conv1: cnn [32,1,5,5], lenet5 [6,1,5,5]: the keys (1, co, ci, ki, kj) of lenet5's all occur in cnn.
  ASSERT_EQ(cnn[0].param.sizes(), (std::vector<int64_t>{32, 1, 5, 5}));
  ASSERT_EQ(lenet[0].param.sizes(), (std::vector<int64_t>{6, 1, 5, 5}));
  EXPECT_TRUE(torch::equal(cnn[0].groups.narrow(0, 0, 6 * 25), lenet[0].groups));
  // conv2: cnn [64,32,5,5], lenet5 [16,6,5,5]: element (co, ci, ki, kj) of lenet5 is cnn's too.
  const auto cg = cnn[2].groups.view({64, 32, 5, 5}), lg = lenet[2].groups.view({16, 6, 5, 5});
  EXPECT_TRUE(torch::equal(cg.narrow(0, 0, 16).narrow(1, 0, 6), lg));
  // The bias keys (1, c) too.
  EXPECT_TRUE(torch::equal(cnn[1].groups.narrow(0, 0, 6), lenet[1].groups));
  // Another layer, another seed: other groups (150,000 of them: a chance match of all 150 is nil).
  EXPECT_FALSE(torch::equal(cg.narrow(0, 0, 6).narrow(1, 0, 1), lenet[0].groups.view({6, 1, 5, 5})));
  std::shared_ptr<models::Net> other;
  EXPECT_FALSE(torch::equal(tensors_of("lenet5", l, 100, other)[0].groups, lenet[0].groups));
  // Groups stay inside Theta's ranges.
  for (const auto& t : cnn) {
    EXPECT_GE(t.groups.min().item<int64_t>(), 0);
    EXPECT_LT(t.groups.max().item<int64_t>(), t.edge ? l.edge_groups : l.node_groups);
  }
}

TEST(UnifiedFl, InitialThetaGivesTheNativeModelOnSoftsignedWeights) {
  // Theta = (1, 0, s = 1): the modulated forward is the native network with every weight,
  // bias and norm affine w / (1 + |w|): the model-graph's computation, layer by layer.
  const ThetaLayout l{500, 100};
  torch::manual_seed(3);
  for (const char* arch : {"cnn", "lenet5", "mlp", "resnet10"}) {
    SCOPED_TRACE(arch);
    const models::ModelSpec spec{.arch = arch, .height = 28, .width = 28};
    auto net = models::make_net(spec);
    auto native = models::make_net(spec);
    models::load_state(*native, models::flatten_state(*net));
    net->eval(), native->eval();
    const torch::Tensor x = torch::randn({3, 1, 28, 28});
    const torch::Tensor before = native->forward(x);
    {
      torch::NoGradGuard no_grad;
      for (auto& p : native->parameters()) p.copy_(p / (1 + p.abs()));
    }
    const torch::Tensor theta = torch::tensor(unifiedfl::initial_theta(l));
    torch::NoGradGuard no_grad;
    unifiedfl::Modulator modulator(*net, l, 5);
    modulator.apply(theta);
    EXPECT_TRUE(torch::allclose(net->forward(x), native->forward(x), 1e-5, 1e-6));
    // Without Theta applied (evaluation), the network is the native one, untouched.
    modulator.fold(theta);  // points the forward back at the (now folded) private weights
  }
  // Before any fold the private network gives exactly the native output.
  auto net = models::make_net({.arch = "cnn"});
  auto copy = models::make_net({.arch = "cnn"});
  models::load_state(*copy, models::flatten_state(*net));
  const torch::Tensor x = torch::randn({2, 1, 28, 28});
  { unifiedfl::Modulator untouched(*net, l, 5); }
  EXPECT_TRUE(torch::equal(net->forward(x), copy->forward(x)));
}

TEST(UnifiedFl, ThetaLayoutAndPayload) {
  const ThetaLayout l{150000, 50000};
  EXPECT_EQ(l.size(), 400002);  // the paper's P ~ 4e5
  EXPECT_EQ(l.payload_bytes(), 400002 * 4 + models::kPayloadHeaderBytes);
  const auto theta = unifiedfl::initial_theta(ThetaLayout{3, 2});
  EXPECT_EQ(theta, (std::vector<float>{1, 1, 1, 0, 0, 0, 1, 1, 0, 0, 1, 1}));
}

// Six hospitals of three architectures, Fashion-MNIST-like synthetic 16x16 images.
std::string zoo(const std::string& algorithm, const std::string& extra = "") {
  return "name: uf\nseed: 5\nplatform:\n  hospitals:\n"
         "    - {count: 2, tier: weak, model: {arch: mlp}}\n"
         "    - {count: 2, tier: medium, model: {arch: lenet5}}\n"
         "    - {count: 2, tier: strong, model: {arch: cnn}}\n" + std::string(R"(
data:
  dataset: synthetic
  partition: {scheme: dirichlet, beta: 1.0}
  synthetic: {train_samples: 600, test_samples: 120, height: 16, width: 16}
model: {arch: mlp}
training: {batch_size: 16}
algorithm: {name: )") + algorithm + R"(, t_ic: 2, t_bc: 3, t_init: 3, t_update: 4, edge_groups: 300, node_groups: 40}
stop: {rounds: 6}
timing: {network: cm02}
output: {trace: false}
)" + extra;
}

constexpr int64_t kThetaBytes = (2 * 300 + 2 * 40 + 2) * 4 + models::kPayloadHeaderBytes;
constexpr int64_t kDescriptorBytes = 8 * 4 + models::kPayloadHeaderBytes;

// Column `name` of a CSV's rows (header first).
std::vector<std::string> column(const std::vector<std::string>& rows, const std::string& name) {
  const auto header = cells(rows.at(0));
  const size_t at = size_t(std::find(header.begin(), header.end(), name) - header.begin());
  EXPECT_LT(at, header.size()) << name;
  std::vector<std::string> out;
  for (size_t i = 1; i < rows.size(); ++i) out.push_back(at < header.size() ? cells(rows[i]).at(at) : "");
  return out;
}

TEST(UnifiedFl, TwoTierScheduleAndWhatTravels) {
  const std::string out = test::run_ok("uf-schedule", zoo("unifiedfl"), "--log-level warn");
  const auto rounds = lines(read_file(out + "/rounds.csv"));
  ASSERT_EQ(rounds.size(), 7u);
  // t_ic 2: intra at 2, 4; t_bc 3 after t_init 3: cross at 6 (3 is not after the warm-up).
  EXPECT_EQ(column(rounds, "merge"), (std::vector<std::string>{"", "intra", "", "intra", "", "cross"}));
  const auto up = column(rounds, "bytes_up"), down = column(rounds, "bytes_down");
  for (size_t r = 0; r < 6; ++r) {
    const int round = int(r) + 1;
    const bool sends = round % 2 == 0;  // 2, 4 (also t_update), 6
    EXPECT_EQ(std::stoll(up[r]), 6 * ((sends ? kThetaBytes : 0) + (round == 1 ? kDescriptorBytes : 0))) << round;
    EXPECT_EQ(std::stoll(down[r]), sends ? 6 * kThetaBytes : 0) << round;
  }
  // Every message is Theta or the descriptor: no private weight crosses a link.
  std::set<int64_t> private_sizes;
  for (const char* arch : {"mlp", "lenet5", "cnn"})
    private_sizes.insert(models::payload_bytes(models::model_cost({.arch = arch, .height = 16, .width = 16})));
  const auto events = lines(read_file(out + "/events.csv"));
  int sends = 0;
  for (size_t i = 1; i < events.size(); ++i) {
    const auto c = cells(events[i]);
    if (c[3] != "send") continue;
    ++sends;
    const int64_t bytes = std::stoll(c[5]);
    EXPECT_TRUE(bytes == kThetaBytes || bytes == kDescriptorBytes) << events[i];
    EXPECT_EQ(private_sizes.count(bytes), 0u);
  }
  EXPECT_EQ(sends, 6 + 3 * 12);
  // Clusters: a count per round, a cluster per hospital row.
  for (const auto& k : column(rounds, "clusters")) EXPECT_GE(std::stoi(k), 1);
  const auto hospitals = lines(read_file(out + "/hospitals.csv"));
  EXPECT_EQ(cells(hospitals[0]).back(), "cluster");
  for (const auto& c : column(hospitals, "cluster")) EXPECT_GE(std::stoi(c), 0);
  // The server's clustering is charged: round 1 (descriptors) and round 4 (reclustering).
  std::set<int> server_rounds;
  for (size_t i = 1; i < events.size(); ++i) {
    const auto c = cells(events[i]);
    if (c[3] == "server") server_rounds.insert(std::stoi(c[7]));
  }
  EXPECT_EQ(server_rounds, (std::set<int>{1, 2, 4, 6}));
  const auto summary = nlohmann::json::parse(read_file(out + "/summary.json"));
  EXPECT_GT(summary["final_accuracy"].get<double>(), 0.0);
}

TEST(UnifiedFl, StaticAblationKeepsTheTopologyClusters) {
  const std::string out = test::run_ok("uf-static", zoo("ufedgnn"), "--log-level warn");
  const auto hospitals = lines(read_file(out + "/hospitals.csv"));
  const auto cluster = column(hospitals, "cluster");
  ASSERT_EQ(cluster.size(), 36u);
  // Rows: 6 hospitals per round, in id order (2 mlp, 2 lenet5, 2 cnn); one architecture, one cluster.
  for (size_t r = 0; r < 6; ++r) {
    for (size_t h = 0; h < 6; ++h) EXPECT_EQ(cluster[r * 6 + h], cluster[h]) << "round " << r + 1;
    EXPECT_EQ(cluster[r * 6], cluster[r * 6 + 1]);
    EXPECT_EQ(cluster[r * 6 + 2], cluster[r * 6 + 3]);
    EXPECT_EQ(cluster[r * 6 + 4], cluster[r * 6 + 5]);
  }
  EXPECT_EQ(std::set<std::string>(cluster.begin(), cluster.end()).size(), 3u);
}

TEST(UnifiedFl, ByteIdenticalAcrossRunsAndWorkers) {
  const std::string one = test::run_ok("uf-det-1", zoo("unifiedfl"), "--log-level warn --set training.workers=1");
  const std::string again = test::run_ok("uf-det-1b", zoo("unifiedfl"), "--log-level warn --set training.workers=1");
  const std::string two = test::run_ok("uf-det-2", zoo("unifiedfl"), "--log-level warn --set training.workers=2");
  for (const char* f : {"rounds.csv", "hospitals.csv", "events.csv", "summary.json"}) {
    EXPECT_EQ(read_file(one + "/" + f), read_file(again + "/" + f)) << f;
    EXPECT_EQ(read_file(one + "/" + f), read_file(two + "/" + f)) << f;
  }
}

// Killed after round 3 and resumed from the round-2 checkpoint (private models, Theta, the
// server's uploads, the clusters): the uninterrupted run's bytes.
TEST(UnifiedFl, AResumedRunGivesTheSameBytes) {
  const std::string dir = test::temp_dir("uf-resume");
  test::write_file(dir + "/s.yaml", zoo("unifiedfl"));
  test::expect_resume_gives_same_bytes(dir, "--log-level warn --set output.checkpoint_every=2");
}

// Four hospitals of one architecture, two of them holding classes 0-4 and two classes 5-9: the
// topology descriptors are all alike, so uFedGNN keeps one cluster, while each pair's Theta
// updates pull the same way. Reclustering every 2 rounds; no cross merge within the 4 rounds.
std::string split_by_task(const std::string& algorithm, const std::string& cluster_on) {
  return R"(name: uf-tasks
seed: 5
platform:
  hospitals:
    - {count: 4, tier: medium, model: {arch: mlp}}
data:
  tasks:
    - {dataset: synthetic, classes: [0, 1, 2, 3, 4], hospitals: 2}
    - {dataset: synthetic, classes: [5, 6, 7, 8, 9], hospitals: 2}
  synthetic: {train_samples: 800, test_samples: 100, height: 16, width: 16}
model: {arch: mlp}
training: {batch_size: 16}
algorithm: {name: )" + algorithm + (cluster_on.empty() ? "" : ", cluster_on: " + cluster_on) +
         R"(, t_ic: 2, t_bc: 50, t_init: 50, t_update: 2, edge_groups: 3000, node_groups: 300}
stop: {rounds: 4}
timing: {network: cm02}
output: {trace: false}
)";
}

// Each round's cluster column, the 4 hospitals joined ("0 0 1 1").
std::vector<std::string> clusters_by_round(const std::string& out) {
  const auto cluster = column(lines(read_file(out + "/hospitals.csv")), "cluster");
  EXPECT_EQ(cluster.size(), 16u);
  std::vector<std::string> rounds;
  for (size_t r = 0; r + 4 <= cluster.size(); r += 4)
    rounds.push_back(cluster[r] + " " + cluster[r + 1] + " " + cluster[r + 2] + " " + cluster[r + 3]);
  return rounds;
}

// cluster_on: theta_update reclusters on the updates, and the hospitals that share a task
// share a cluster: an assignment the static ablation, one cluster of alike topologies, never has.
TEST(UnifiedFl, ClusteringOnThetaUpdatesCanLeaveTheStaticClusters) {
  const auto fixed = clusters_by_round(test::run_ok("uf-upd-static", split_by_task("ufedgnn", ""), "--log-level warn"));
  EXPECT_EQ(fixed, (std::vector<std::string>(4, "0 0 0 0")));
  const auto moving =
      clusters_by_round(test::run_ok("uf-upd", split_by_task("unifiedfl", "theta_update"), "--log-level warn"));
  ASSERT_EQ(moving.size(), 4u);
  EXPECT_EQ(moving[0], "0 0 0 0");  // round 1: the descriptors' one cluster
  for (size_t r = 1; r < 4; ++r) EXPECT_EQ(moving[r], "0 0 1 1") << "round " << r + 1;
}

// Two architectures (mlp, mlp4), each on both tasks: the descriptors cluster by architecture;
// in round 2 the updates group the hospitals by task, which reclustering on Theta (whose
// centres differ by architecture) does not find. In id order: mlp A, mlp4 A, mlp B, mlp4 B.
TEST(UnifiedFl, ClusteringOnThetaUpdatesFindsTasksThatThetaDoesNot) {
  std::string yaml = split_by_task("unifiedfl", "");
  const std::string four_mlps = "    - {count: 4, tier: medium, model: {arch: mlp}}\n";
  ASSERT_NE(yaml.find(four_mlps), std::string::npos);
  yaml.replace(yaml.find(four_mlps), four_mlps.size(),
               "    - {count: 1, tier: medium, name: a, model: {arch: mlp}}\n"
               "    - {count: 1, tier: medium, name: b, model: {arch: mlp4}}\n"
               "    - {count: 1, tier: medium, name: c, model: {arch: mlp}}\n"
               "    - {count: 1, tier: medium, name: d, model: {arch: mlp4}}\n");
  const auto on_theta = clusters_by_round(test::run_ok("uf-arch-theta", yaml, "--log-level warn"));
  const auto on_update = clusters_by_round(
      test::run_ok("uf-arch-update", yaml, "--log-level warn --set algorithm.cluster_on=theta_update"));
  ASSERT_EQ(on_theta.size(), 4u);
  ASSERT_EQ(on_update.size(), 4u);
  EXPECT_EQ(on_theta[0], "0 1 0 1");  // the descriptors: by architecture
  EXPECT_EQ(on_update[0], "0 1 0 1");
  EXPECT_EQ(on_update[1], "0 0 1 1");  // round 2's updates: by task
  EXPECT_NE(on_theta[1], "0 0 1 1");
}

TEST(UnifiedFl, ClusteringOnThetaUpdatesIsDeterministicAndResumes) {
  const std::string yaml = split_by_task("unifiedfl", "theta_update");
  const std::string one = test::run_ok("uf-upd-det-1", yaml, "--log-level warn --set training.workers=1");
  const std::string again = test::run_ok("uf-upd-det-1b", yaml, "--log-level warn --set training.workers=1");
  const std::string two = test::run_ok("uf-upd-det-2", yaml, "--log-level warn --set training.workers=2");
  for (const char* f : {"rounds.csv", "hospitals.csv", "events.csv", "summary.json"}) {
    EXPECT_EQ(read_file(one + "/" + f), read_file(again + "/" + f)) << f;
    EXPECT_EQ(read_file(one + "/" + f), read_file(two + "/" + f)) << f;
  }
  // The server's last Theta to each hospital and the updates travel in the checkpoint.
  const std::string dir = test::temp_dir("uf-upd-resume");
  test::write_file(dir + "/s.yaml", yaml);
  test::expect_resume_gives_same_bytes(dir, "--log-level warn --set output.checkpoint_every=2");
}

TEST(UnifiedFl, BadKeysAreInputErrors) {
  test::expect_run_input_error("uf-bad-tic", zoo("unifiedfl"), "--set algorithm.t_ic=0", "algorithm.t_ic");
  test::expect_run_input_error("uf-bad-steps", zoo("unifiedfl"), "--set training.local_steps=3",
                               "training.local_steps");
  test::expect_run_input_error("uf-bad-on", zoo("unifiedfl"), "--set algorithm.cluster_on=weights",
                               "algorithm.cluster_on");
  test::expect_run_input_error("uf-static-on", zoo("ufedgnn"), "--set algorithm.cluster_on=theta_update",
                               "algorithm.cluster_on");
}

}  // namespace
}  // namespace fedgrid

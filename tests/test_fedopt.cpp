// FedAdagrad, FedYogi, FedAdam (algorithms/fedopt.cpp): the server step against numbers computed
// by hand, the keys' bounds, the FLOPs charged on the server, timing-only runs, learning.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "algorithms/aggregation.hpp"
#include "sim/core/model.hpp"
#include "tests/helpers.hpp"

namespace fedgrid::algorithms {
// Defined in algorithms/fedopt.cpp, which has no header (an algorithm is one file): one server
// step of Algorithm 2 (Reddi et al. 2021). `method`: adagrad | yogi | adam; the first `stepped`
// values are stepped, the rest taken from `average`; m and v (empty before the first step) are
// updated in place. Returns x_{t+1}.
std::vector<float> fedopt_server_step(const std::string& method, double eta, double beta1, double beta2, double tau,
                                      const std::vector<float>& x, const std::vector<float>& average, size_t stepped,
                                      std::vector<double>& m, std::vector<double>& v);
}  // namespace fedgrid::algorithms

namespace fedgrid {
namespace {

using test::cells;
using test::lines;
using test::read_file;
using test::run_fedgrid;
using test::run_ok;

// Two rounds of each method on a three-value state whose last value is a buffer (stepped = 2).
// eta = 0.1, beta1 = 0.9, beta2 = 0.99, tau = 0.01, so v_{-1} = tau^2 = 0.0001, m_{-1} = 0.
//
// Round 1: x_0 = [1, 2, 5]. Two hospitals upload [2, 1, 7] (3 samples) and [0, 1, 3] (1 sample):
//   average = (3 [2, 1, 7] + 1 [0, 1, 3]) / 4 = [1.5, 1.0, 6.0]
//   Delta_0 = [1.5 - 1, 1.0 - 2] = [0.5, -1.0];  Delta_0^2 = [0.25, 1.0]
//   m_0 = 0.9 * 0 + 0.1 * Delta_0 = [0.05, -0.1]
// Round 2 (the state carried over): x_1 = [1, 2, 5] again (so the numbers stay short), average
// [1.02, 0.0, 5.5]:
//   Delta_1 = [0.02, -2.0];  Delta_1^2 = [0.0004, 4.0]
//   m_1 = 0.9 [0.05, -0.1] + 0.1 [0.02, -2.0] = [0.047, -0.29]
// The buffer is the plain average each round: 6.0, then 5.5.
struct Expected {
  const char* method;
  std::vector<double> v0, x1, v1, x2;
};

// x = x_t + 0.1 m / (sqrt(v) + 0.01), written out per method below.
const Expected kExpected[] = {
    // fedadagrad: v_t = v_{t-1} + Delta^2
    //   v_0 = 0.0001 + [0.25, 1.0] = [0.2501, 1.0001];  sqrt = [0.50009999, 1.00004999875]
    //   x_1 = [1 + 0.005 / 0.51009999, 2 - 0.01 / 1.01004999875] = [1.0098020, 1.9900995]
    //   v_1 = [0.2501 + 0.0004, 1.0001 + 4.0] = [0.2505, 5.0001];  sqrt = [0.50049975, 2.23609034]
    //   x_2 = [1 + 0.0047 / 0.51049975, 2 - 0.029 / 2.24609034] = [1.0092067, 1.9870887]
    {"adagrad", {0.2501, 1.0001}, {1.0098020, 1.9900995}, {0.2505, 5.0001}, {1.0092067, 1.9870887}},
    // fedyogi: v_t = v_{t-1} - 0.01 Delta^2 sign(v_{t-1} - Delta^2)
    //   round 1: sign(0.0001 - 0.25) = sign(0.0001 - 1.0) = -1
    //   v_0 = [0.0001 + 0.0025, 0.0001 + 0.01] = [0.0026, 0.0101];  sqrt = [0.05099020, 0.10049876]
    //   x_1 = [1 + 0.005 / 0.06099020, 2 - 0.01 / 0.11049876] = [1.0819804, 1.9095012]
    //   round 2: sign(0.0026 - 0.0004) = +1, sign(0.0101 - 4.0) = -1
    //   v_1 = [0.0026 - 0.000004, 0.0101 + 0.04] = [0.002596, 0.0501];  sqrt = [0.05095096, 0.22383029]
    //   x_2 = [1 + 0.0047 / 0.06095096, 2 - 0.029 / 0.23383029] = [1.0771112, 1.8759784]
    {"yogi", {0.0026, 0.0101}, {1.0819804, 1.9095012}, {0.002596, 0.0501}, {1.0771112, 1.8759784}},
    // fedadam: v_t = 0.99 v_{t-1} + 0.01 Delta^2 (no bias correction)
    //   v_0 = [0.000099 + 0.0025, 0.000099 + 0.01] = [0.002599, 0.010099];  sqrt = [0.05098039, 0.10049378]
    //   x_1 = [1 + 0.005 / 0.06098039, 2 - 0.01 / 0.11049378] = [1.0819936, 1.9094972]
    //   v_1 = [0.00257301 + 0.000004, 0.00999801 + 0.04] = [0.00257701, 0.04999801]
    //   sqrt = [0.05076426, 0.22360235];  x_2 = [1 + 0.0047 / 0.06076426, 2 - 0.029 / 0.23360235]
    //       = [1.0773481, 1.8758574]
    {"adam", {0.002599, 0.010099}, {1.0819936, 1.9094972}, {0.00257701, 0.04999801}, {1.0773481, 1.8758574}},
};

Update upload(int hospital, std::vector<float> weights, int64_t samples) {
  Update u;
  u.hospital = hospital;
  u.model = Model{models::ModelSpec{}, std::move(weights)};
  u.samples = samples;
  return u;
}

TEST(FedOpt, ServerStepMatchesTheHandComputationForEachMethod) {
  for (const auto& e : kExpected) {
    SCOPED_TRACE(e.method);
    std::vector<double> m, v;  // the optimiser's state, empty before the first round
    const std::vector<float> x{1, 2, 5};

    const Model average = algorithms::weighted_average({upload(0, {2, 1, 7}, 3), upload(1, {0, 1, 3}, 1)});
    ASSERT_EQ(average.weights, (std::vector<float>{1.5f, 1.0f, 6.0f}));
    auto x1 = algorithms::fedopt_server_step(e.method, 0.1, 0.9, 0.99, 0.01, x, average.weights, 2, m, v);
    ASSERT_EQ(x1.size(), 3u);
    ASSERT_EQ(m.size(), 2u);
    ASSERT_EQ(v.size(), 2u);
    EXPECT_NEAR(m[0], 0.05, 1e-12);
    EXPECT_NEAR(m[1], -0.1, 1e-12);
    for (size_t i = 0; i < 2; ++i) {
      EXPECT_NEAR(v[i], e.v0[i], 1e-12) << i;
      EXPECT_NEAR(x1[i], e.x1[i], 1e-6) << i;
    }
    EXPECT_EQ(x1[2], 6.0f);  // the buffer: the plain average

    auto x2 = algorithms::fedopt_server_step(e.method, 0.1, 0.9, 0.99, 0.01, x, {1.02f, 0.0f, 5.5f}, 2, m, v);
    // m_1 from the float 1.02f: 0.9 * 0.05 + 0.1 * (1.02f - 1) (1.02f = 1.0199999809...).
    EXPECT_NEAR(m[0], 0.047, 1e-8);
    EXPECT_NEAR(m[1], -0.29, 1e-12);
    for (size_t i = 0; i < 2; ++i) {
      EXPECT_NEAR(v[i], e.v1[i], 1e-9) << i;
      EXPECT_NEAR(x2[i], e.x2[i], 1e-6) << i;
    }
    EXPECT_EQ(x2[2], 5.5f);
  }
}

TEST(FedOpt, ZeroUpdateLeavesTheModelWhereItIs) {
  // Delta = 0 and m = 0: x_{t+1} = x_t exactly. v from v_{-1} = tau^2 = 1e-6: adagrad adds 0;
  // yogi subtracts 0.01 * 0 * sign(1e-6 - 0) = 0; adam decays it to 0.99e-6.
  for (const auto& [method, v0] : std::vector<std::pair<std::string, double>>{
           {"adagrad", 1e-6}, {"yogi", 1e-6}, {"adam", 0.99e-6}}) {
    std::vector<double> m, v;
    const std::vector<float> x{0.25f, -3.0f};
    EXPECT_EQ(algorithms::fedopt_server_step(method, 1.0, 0.9, 0.99, 1e-3, x, x, 2, m, v), x) << method;
    EXPECT_NEAR(v[0], v0, 1e-18) << method;
    EXPECT_EQ(m[0], 0.0) << method;
  }
}

// test::tiny_scenario (6 hospitals, synthetic 12x12 data, mlp) without the trace file.
std::string quiet_tiny(const std::string& name) {
  return test::tiny_scenario(name) + "output: {trace: false}\n";
}

TEST(FedOpt, BadKeysAreInputErrors) {
  const std::string dir = test::temp_dir("fedopt-keys");
  test::write_file(dir + "/s.yaml", quiet_tiny("fedopt-keys"));
  const std::string base = "validate " + dir + "/s.yaml --set algorithm.name=fedadam ";
  EXPECT_EQ(run_fedgrid(base).exit_code, 0) << run_fedgrid(base).output;
  for (const char* bad : {"algorithm.beta1=1.5", "algorithm.beta1=1", "algorithm.beta1=-0.1", "algorithm.beta2=2", "algorithm.server_lr=0",
                          "algorithm.server_lr=-1", "algorithm.tau=0", "algorithm.tau=abc"}) {
    auto r = run_fedgrid(base + "--set " + bad);
    EXPECT_EQ(r.exit_code, 2) << bad << "\n" << r.output;
    const std::string key = std::string(bad).substr(0, std::string(bad).find('='));
    EXPECT_NE(r.output.find(key), std::string::npos) << bad << "\n" << r.output;
  }
  // The keys are listed, and valid values pass.
  auto keys = run_fedgrid("list keys");
  for (const char* key : {"algorithm.server_lr", "algorithm.beta1", "algorithm.beta2", "algorithm.tau"})
    EXPECT_NE(keys.output.find(key), std::string::npos) << key;
  EXPECT_EQ(run_fedgrid(base + "--set algorithm.beta1=0 --set algorithm.beta2=0.999 --set algorithm.tau=1e-9 "
                               "--set algorithm.server_lr=1 --set algorithm.fraction=0.5")
                .exit_code,
            0);
  auto algorithms = run_fedgrid("list algorithms").output;
  for (const char* name : {"fedadagrad", "fedyogi", "fedadam"}) EXPECT_NE(algorithms.find(name), std::string::npos);
}

// The server's compute events of a run's events.csv: their FLOPs.
std::vector<std::string> server_flops(const std::string& out) {
  std::vector<std::string> flops;
  for (const auto& row : lines(read_file(out + "/events.csv")))
    if (cells(row).at(3) == "server") flops.push_back(cells(row).at(6));
  return flops;
}

TEST(FedOpt, TimingOnlyRunsChargeTheAverageAndTheStep) {
  // tiny_scenario: 6 hospitals, mlp on 12x12 inputs: 71,210 values, all parameters (no batch
  // norm). Server FLOPs per round: the average, 2 x 71,210 x 6, plus the step per value:
  // 11 (adagrad), 15 (yogi), 13 (adam).
  const int64_t values = 71210;
  for (const auto& [name, per_value] : std::vector<std::pair<std::string, int64_t>>{
           {"fedadagrad", 11}, {"fedyogi", 15}, {"fedadam", 13}}) {
    auto out = run_ok("fedopt-timing-" + name, quiet_tiny("fedopt-timing"),
                      "--set training.mode=timing-only --set stop.rounds=2 --set algorithm.name=" + name);
    const auto flops = server_flops(out);
    ASSERT_EQ(flops.size(), 2u) << name;
    for (const auto& f : flops) EXPECT_EQ(f, std::to_string(2 * values * 6 + per_value * values)) << name;
    auto s = nlohmann::json::parse(read_file(out + "/summary.json"));
    EXPECT_EQ(s["rounds"], 2);
    EXPECT_EQ(s["bytes_total"], int64_t(2) * 6 * 2 * 284904);  // as fedavg: one model down, one up
  }
}

// With batch norm, only the parameters are stepped (buffers take the plain average): the step's
// FLOPs count parameters, not state values. resnet10 on 1x16x16, 10 classes, counted by hand.
TEST(FedOpt, TheStepCoversParametersNotBatchNormBuffers) {
  auto out = run_ok("fedopt-bn", quiet_tiny("fedopt-bn"),
                    "--set training.mode=timing-only --set stop.rounds=1 --set algorithm.name=fedadam "
                    "--set model.arch=resnet10 --set data.synthetic.height=16 --set data.synthetic.width=16");
  // Convs and fc (as FedBN's test): stem 7x7 1->64, layer1 2 x 3x3 64->64, layer2..4 two 3x3
  // convs + a 1x1 shortcut, fc 512 -> 10.
  const int64_t convs_fc = 64 * 1 * 49 + 2 * 64 * 64 * 9 + (128 * 64 * 9 + 128 * 128 * 9 + 128 * 64) +
                           (256 * 128 * 9 + 256 * 256 * 9 + 256 * 128) +
                           (512 * 256 * 9 + 512 * 512 * 9 + 512 * 256) + 512 * 10 + 10;
  // 12 batch norms over 64 + 2x64 + 3x128 + 3x256 + 3x512 = 2,880 channels: scale and shift are
  // parameters (2 x 2,880); running mean, running variance and a batch counter are buffers.
  const int64_t parameters = convs_fc + 2 * 2880, buffers = 2 * 2880 + 12;
  int64_t values = -1;
  for (const auto& row : lines(read_file(out + "/events.csv")))
    if (cells(row).at(3) == "send") values = (std::stoll(cells(row).at(5)) - 64) / 4;
  ASSERT_EQ(values, parameters + buffers);
  const auto flops = server_flops(out);
  ASSERT_EQ(flops.size(), 1u);
  EXPECT_EQ(flops[0], std::to_string(2 * values * 6 + 13 * parameters));
}

TEST(FedOpt, RealAndTimingOnlyRunsChargeTheSameEvents) {
  const std::string yaml = quiet_tiny("fedopt-same") + "algorithm: {name: fedadam}\n";
  auto real = run_ok("fedopt-real", yaml, "--set stop.rounds=2");
  auto timing = run_ok("fedopt-timing-only", yaml, "--set stop.rounds=2 --set training.mode=timing-only");
  EXPECT_EQ(read_file(real + "/events.csv"), read_file(timing + "/events.csv"));
}

class FedOptMethod : public ::testing::TestWithParam<const char*> {};

// A short real run learns: synthetic data, mlp, 6 hospitals, 5 rounds, default keys. Chance is
// 10% (10 classes).
TEST_P(FedOptMethod, ShortRealRunLearns) {
  auto out = run_ok(std::string("fedopt-learn-") + GetParam(), quiet_tiny("fedopt-learn"),
                    std::string("--set stop.rounds=5 --set algorithm.name=") + GetParam());
  auto s = nlohmann::json::parse(read_file(out + "/summary.json"));
  EXPECT_EQ(s["algorithm"], GetParam());
  EXPECT_GE(s["final_accuracy"].get<double>(), 0.5) << read_file(out + "/rounds.csv");
}

INSTANTIATE_TEST_SUITE_P(FedOpt, FedOptMethod, ::testing::Values("fedadagrad", "fedyogi", "fedadam"));

TEST(FedOpt, DiffersFromFedAvgOnlyInTheServerStep) {
  // Same messages, bytes and hospital work as fedavg; the server's step changes the model.
  const std::string yaml = quiet_tiny("fedopt-vs-avg");
  auto avg = run_ok("fedopt-avg", yaml, "--set stop.rounds=2");
  auto adam = run_ok("fedopt-adam", yaml, "--set stop.rounds=2 --set algorithm.name=fedadam");
  auto a = nlohmann::json::parse(read_file(avg + "/summary.json"));
  auto b = nlohmann::json::parse(read_file(adam + "/summary.json"));
  EXPECT_EQ(a["bytes_total"], b["bytes_total"]);
  EXPECT_EQ(a["messages"], b["messages"]);
  EXPECT_NE(read_file(avg + "/rounds.csv"), read_file(adam + "/rounds.csv"));
  // Round 1's hospital rows (same global model downloaded, same local work) are identical up to
  // the time columns, which the server's extra FLOPs shift only after the uploads.
  auto ha = lines(read_file(avg + "/hospitals.csv")), hb = lines(read_file(adam + "/hospitals.csv"));
  ASSERT_EQ(ha.size(), hb.size());
  for (size_t i = 1; i < ha.size(); ++i)
    if (cells(ha[i]).at(0) == "1") EXPECT_EQ(cells(ha[i]).at(5), cells(hb[i]).at(5)) << ha[i];  // train_loss
}

TEST(FedOpt, ReadyScenarioRunsSmall) {
  const std::string scenario = std::string(test::source_dir()) + "/scenarios/fedopt/fedadam.yaml";
  auto v = run_fedgrid("validate " + scenario);
  EXPECT_EQ(v.exit_code, 0) << v.output;
  const std::string dir = test::temp_dir("fedopt-ready");
  auto r = run_fedgrid("run " + scenario + " --out " + dir +
                       " --set data.dataset=synthetic --set model.arch=mlp --set stop.rounds=2 --log-level warn");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(nlohmann::json::parse(read_file(dir + "/summary.json"))["algorithm"], "fedadam");
}

}  // namespace
}  // namespace fedgrid

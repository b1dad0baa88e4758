// FedSKD and its baselines in whole runs: where the traffic flows, who sends what to whom, the
// two schedules, heterogeneous widths and their charges; plus the step-sized jobs and the AUC.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "sim/jobs/evaluation/metrics.hpp"
#include "sim/jobs/compute.hpp"
#include "tests/fedskd_scenario.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

using test::cells;
using test::events;
using test::lines;
using test::read_file;
using test::run_fedgrid;
using test::run_ok;

// tests/fedskd_scenario.hpp's federation, 4 rounds.
std::string four(const std::string& algorithm, bool widths = false, const std::string& extra = "") {
  return test::fedskd_four(algorithm, widths, "stop: {rounds: 4}\n" + extra);
}

std::string column(const std::string& dir, const std::string& file, const std::string& name, size_t row) {
  const auto rows = lines(read_file(dir + "/" + file));
  const auto header = cells(rows[0]);
  for (size_t c = 0; c < header.size(); ++c)
    if (header[c] == name) return cells(rows[row])[c];
  ADD_FAILURE() << name << " not in " << file;
  return "";
}

std::string fmt_sim_time(double t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9f", t);
  return buf;
}

int64_t cnn_payload(double width) {
  return models::model_cost({"cnn", 1, 16, 16, 10, width}).state_values * 4 + models::kPayloadHeaderBytes;
}

TEST(FedSKD, TrafficFlowsOnlyBetweenHospitals) {
  const auto out = run_ok("skd-p2p", four("fedskd"));
  int sends = 0;
  for (const auto& e : events(out)) {
    EXPECT_NE(e.kind, "server");
    EXPECT_NE(e.host, "server");
    EXPECT_NE(e.peer, "server");
    sends += e.kind == "send";
  }
  EXPECT_GT(sends, 0);
  const auto summary = nlohmann::json::parse(read_file(out + "/summary.json"));
  EXPECT_EQ(summary["bytes_up"], 0);
  EXPECT_EQ(summary["bytes_down"], 0);
  EXPECT_EQ(summary["bytes_peer"], int64_t(sends) * cnn_payload(1.0));
  EXPECT_EQ(summary["bytes_total"], summary["bytes_peer"]);
  EXPECT_GT(summary["final_accuracy"].get<double>(), 0.5);  // 10 classes: it learns
}

// A permutation: each hospital sends at most one model and receives at most one per round,
// never to itself, and a hospital that receives nothing trains alone (plain job, its own size).
TEST(FedSKD, EveryModelIsSentAndReceivedAtMostOncePerRound) {
  const auto out = run_ok("skd-once", four("fedskd", true));
  const std::map<std::string, int64_t> payload{{"a-1", cnn_payload(1.0)}, {"b-1", cnn_payload(0.96875)},
                                               {"c-1", cnn_payload(0.9375)}, {"d-1", cnn_payload(0.90625)}};
  std::map<int, std::multiset<std::string>> senders, receivers;
  for (const auto& e : events(out))
    if (e.kind == "send") {
      senders[e.round].insert(e.host), receivers[e.round].insert(e.peer);
      EXPECT_NE(e.host, e.peer);
      EXPECT_EQ(e.bytes, payload.at(e.host)) << "a copy of the sender's own model";
    }
  int transfers = 0;
  for (int round = 1; round <= 4; ++round) {
    for (const auto& h : senders[round]) EXPECT_EQ(senders[round].count(h), 1u) << round;
    for (const auto& h : receivers[round]) EXPECT_EQ(receivers[round].count(h), 1u) << round;
    EXPECT_EQ(senders[round].size(), receivers[round].size());
    transfers += int(senders[round].size());
  }
  EXPECT_GT(transfers, 0);
}

// The receiver trains the sender's architecture too and pays for it on its own host: the
// mutual job's FLOPs are both models' training plus the Gram matrices, batch by batch.
TEST(FedSKD, TheReceiverPaysForBothModelsAndTheSimilarities) {
  const auto out = run_ok("skd-cost", four("fedskd", true));
  const std::map<std::string, double> width{{"a-1", 1.0}, {"b-1", 0.96875}, {"c-1", 0.9375}, {"d-1", 0.90625}};
  std::map<std::pair<int, std::string>, std::string> sender_of;  // (round, receiver) -> sender
  std::map<std::string, int64_t> samples;
  const auto hrows = lines(read_file(out + "/hospitals.csv"));
  for (size_t i = 1; i < hrows.size(); ++i) samples[cells(hrows[i])[1]] = std::stoll(cells(hrows[i])[3]);
  const auto all = events(out);
  for (const auto& e : all)
    if (e.kind == "send") sender_of[{e.round, e.peer}] = e.host;
  int checked = 0;
  for (const auto& e : all) {
    if (e.kind != "compute") continue;
    const models::ModelSpec own{"cnn", 1, 16, 16, 10, width.at(e.host)};
    const auto plan = batch_plan(samples.at(e.host), 8, 1, 12, false);
    double want = 0;
    auto it = sender_of.find({e.round, e.host});
    if (it == sender_of.end()) {  // self-consolidation
      for (int64_t b : plan) want += models::model_cost(own).train_flops() * double(b);
    } else {
      const models::ModelSpec received{"cnn", 1, 16, 16, 10, width.at(it->second)};
      // Gram matrices at both of the cnn's stages (8 x 8 x c1 and 2 x 2 x c2 maps; taps by hand).
      const double c1[] = {std::ceil(32 * width.at(e.host) - 1e-9), std::ceil(32 * width.at(it->second) - 1e-9)};
      const double c2[] = {std::ceil(64 * width.at(e.host) - 1e-9), std::ceil(64 * width.at(it->second) - 1e-9)};
      for (int64_t b : plan) {
        double macs = 0;
        for (int m = 0; m < 2; ++m)
          macs += double(b * b) * c1[m] * 36 + 36.0 * 36 * double(b) * c1[m] +  // stage 1: 6 x 6 maps
                  double(b * b) * c2[m] * 1 + 1.0 * 1 * double(b) * c2[m];     // stage 2: 1 x 1
        want += (models::model_cost(own).train_flops() + models::model_cost(received).train_flops()) * double(b) +
                3 * 2 * macs;
      }
    }
    EXPECT_NEAR(e.flops, want, 1e-6 * want + 1) << e.host << " round " << e.round;
    ++checked;
  }
  EXPECT_EQ(checked, 16);
}

// Both schedules compute the same models; the pipelined one never starts a hospital's round
// before the model it receives has arrived, nor before its own previous round ended. (It is not
// faster round by round: a model sent early shares the receiver's downlink with a late one.)
TEST(FedSKD, PipelinedNeverStartsARoundBeforeItsModelArrives) {
  const auto barrier = run_ok("skd-barrier", four("fedskd", true));
  const auto pipelined = run_ok("skd-pipe", four("fedskd", true), "--set algorithm.schedule=pipelined");
  for (size_t round = 1; round <= 4; ++round)
    EXPECT_EQ(column(barrier, "rounds.csv", "accuracy", round), column(pipelined, "rounds.csv", "accuracy", round));
  const auto all = events(pipelined);
  std::map<std::pair<int, std::string>, double> arrival, finished;  // (round, hospital)
  for (const auto& e : all) {
    if (e.kind == "send") arrival[{e.round, e.peer}] = e.end;
    if (e.kind == "compute") finished[{e.round, e.host}] = e.end;
  }
  int waited = 0;
  for (const auto& e : all) {
    if (e.kind != "compute") continue;
    if (auto it = arrival.find({e.round, e.host}); it != arrival.end()) {
      EXPECT_GE(e.start, it->second - 1e-12) << e.host << " round " << e.round;
      ++waited;
    }
    if (e.round > 1) EXPECT_GE(e.start, finished.at({e.round - 1, e.host}) - 1e-12);
  }
  EXPECT_GT(waited, 0);
  // The barrier: nothing of round t starts before every hospital has finished round t - 1.
  std::map<int, double> round_end;
  for (const auto& e : events(barrier)) round_end[e.round] = std::max(round_end[e.round], e.end);
  for (const auto& e : events(barrier))
    if (e.round > 1) EXPECT_GE(e.start, round_end[e.round - 1] - 1e-12);
}

// A stop condition met at round t ends a pipelined run there: the work hospitals had started
// for later rounds is dropped, like a barrier run that never started it.
TEST(FedSKD, PipelinedRunStopsAtTheRoundThatMetTheTarget) {
  const auto out = run_ok("skd-target", four("fedskd"), "--set algorithm.schedule=pipelined --set stop.target_accuracy=0.3");
  const auto summary = nlohmann::json::parse(read_file(out + "/summary.json"));
  EXPECT_EQ(summary["stop_reason"], "target_accuracy");
  const int rounds = summary["rounds"];
  EXPECT_LT(rounds, 4);
  for (const auto& e : events(out)) EXPECT_LE(e.round, rounds);
  EXPECT_EQ(test::cells(lines(read_file(out + "/rounds.csv")).back())[1],
            fmt_sim_time(summary["sim_time_s"].get<double>()));
}

// Distillation is the only thing that couples the two models: with gamma 0 each hospital's own
// model learns exactly as it does alone (Local), batch for batch.
TEST(FedSKD, WithoutDistillationEveryHospitalLearnsAsItWouldAlone) {
  const auto skd = run_ok("skd-gamma0", four("fedskd", true), "--set algorithm.gamma=0");
  const auto local = run_ok("skd-local", four("local", true));
  for (const char* name : {"accuracy", "auc", "global_test_acc", "global_test_auc"})
    for (size_t round = 1; round <= 4; ++round)
      EXPECT_EQ(column(skd, "rounds.csv", name, round), column(local, "rounds.csv", name, round)) << name << round;
  const auto tiny_gamma = run_ok("skd-gamma1", four("fedskd", true));
  EXPECT_NE(column(tiny_gamma, "rounds.csv", "accuracy", 4), column(local, "rounds.csv", "accuracy", 4));
}

TEST(FedSKD, IsDeterministicAcrossWorkerCounts) {
  for (const char* schedule : {"barrier", "pipelined"}) {
    const std::string sets = std::string("--set algorithm.schedule=") + schedule;
    const auto a = run_ok("skd-w1", four("fedskd", true), sets + " --set training.workers=1");
    const auto b = run_ok("skd-w2", four("fedskd", true), sets + " --set training.workers=2");
    for (const char* f : {"rounds.csv", "hospitals.csv", "events.csv", "summary.json"})
      EXPECT_EQ(read_file(a + "/" + f), read_file(b + "/" + f)) << schedule << " " << f;
  }
}

// algorithm.persistent_adam: every Adam starts fresh in round 1 either way, so round 1 is the
// same; afterwards each DAM steps on with its kept moments and the models part.
TEST(FedSKD, PersistentAdamKeepsTheDamsMomentsAcrossRounds) {
  const auto fresh = run_ok("skd-adam-fresh", four("fedskd", true));
  const auto kept = run_ok("skd-adam-kept", four("fedskd", true), "--set algorithm.persistent_adam=true");
  for (const char* name : {"accuracy", "auc"}) {
    EXPECT_EQ(column(fresh, "rounds.csv", name, 1), column(kept, "rounds.csv", name, 1)) << name;
    EXPECT_NE(column(fresh, "rounds.csv", name, 4), column(kept, "rounds.csv", name, 4)) << name;
  }
  // Adam state never travels: the bytes and simulated times are the fresh run's.
  EXPECT_EQ(read_file(fresh + "/events.csv"), read_file(kept + "/events.csv"));
  const auto again = run_ok("skd-adam-kept-2", four("fedskd", true), "--set algorithm.persistent_adam=true --set training.workers=1");
  EXPECT_EQ(read_file(kept + "/rounds.csv"), read_file(again + "/rounds.csv"));
}

TEST(FedSKD, RejectsWhatItCannotRun) {
  const std::string dir = test::temp_dir("skd-bad");
  auto fails = [&](const std::string& yaml, const std::string& sets, const std::string& key) {
    test::write_file(dir + "/s.yaml", yaml);
    const auto r = run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/out " + sets);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(key), std::string::npos) << r.output;
  };
  fails(four("fedskd"), "--set algorithm.skd_layers=[1,3]", "algorithm.skd_layers");  // the cnn has 2 stages
  fails(four("fedskd"), "--set platform.hospitals.0.model=resnet10", "stages");       // 4 stages against 2
  fails(four("fedavg", true), "", "platform.hospitals[0].model");
  fails(four("dynamicfl"), "", "training.local_steps");
  fails(four("fedskd"), "--set algorithm.persistent_adam=true --set training.optimizer=sgd", "algorithm.persistent_adam");
}

TEST(FedCross, RelaysOneModelPeerToPeer) {
  const auto out = run_ok("fedcross", four("fedcross"));
  std::map<int, int> hops;
  for (const auto& e : events(out)) {
    EXPECT_NE(e.host, "server");
    EXPECT_NE(e.peer, "server");
    if (e.kind != "send") continue;
    ++hops[e.round];
    EXPECT_EQ(e.bytes, cnn_payload(1.0));
  }
  EXPECT_EQ(hops[1], 3);  // starts at the first hospital, no transfer
  for (int round = 2; round <= 4; ++round) EXPECT_EQ(hops[round], 4);  // last of round t-1 -> first of t
  // Sequential: one hospital computes at a time.
  double busy_until = 0;
  for (const auto& e : events(out))
    if (e.kind == "compute") {
      EXPECT_GE(e.start, busy_until - 1e-12);
      busy_until = e.end;
    }
}

// FedBN ships everything but the batch norms: the payload is counted from the layout by hand
// (resnet10, 10 classes: every conv, the fc, and no BN scale, shift or statistic).
TEST(FedBN, KeepsBatchNormsAtHome) {
  const auto out = run_ok("fedbn", four("fedbn"), "--set model.arch=resnet10 --set stop.rounds=2");
  const models::ModelSpec spec{"resnet10", 1, 16, 16, 10};
  int64_t non_bn = 0;
  for (const auto& t : models::state_layout(spec))
    if (!t.batchnorm) non_bn += t.numel();
  // stem 7x7 1->64, layer1 2 x 3x3 64->64, layer2..4 3x3 convs + 1x1 shortcuts, fc 512 -> 10.
  const int64_t by_hand = 64 * 1 * 49 + 2 * 64 * 64 * 9 + (128 * 64 * 9 + 128 * 128 * 9 + 128 * 64) +
                          (256 * 128 * 9 + 256 * 256 * 9 + 256 * 128) + (512 * 256 * 9 + 512 * 512 * 9 + 512 * 256) +
                          512 * 10 + 10;
  EXPECT_EQ(non_bn, by_hand);
  for (const auto& e : events(out))
    if (e.kind == "send") EXPECT_EQ(e.bytes, by_hand * 4 + models::kPayloadHeaderBytes);
  // Each hospital keeps its own batch norms: the local test is each model on its own split.
  EXPECT_FALSE(column(out, "rounds.csv", "global_test_acc", 2).empty());
}

TEST(Metrics, MacroAucOneVsRestByHand) {
  // Binary: positives score 0.8, 0.4; negatives 0.4, 0.1 -> pairs (0.8>0.4, 0.8>0.1, tie, 0.4>0.1) = 3.5/4.
  const std::vector<float> two{0.2f, 0.8f, 0.6f, 0.4f, 0.6f, 0.4f, 0.9f, 0.1f};
  const std::vector<int64_t> labels2{1, 1, 0, 0};
  // Class 1 (scores 0.8, 0.4 | 0.4, 0.1) = 0.875; class 0 (0.2, 0.6 | 0.6, 0.9) = 0.125 -> as softmax pairs,
  // class 0's "is class 0" AUC: positives {0.6, 0.9} vs negatives {0.2, 0.6}: (1 + 0.5 + 1 + 1) / 4 = 0.875.
  EXPECT_NEAR(*macro_auc_ovr(two, labels2, 2), 0.875, 1e-12);
  // Three classes, one absent from the labels: only classes 0 and 1 count.
  const std::vector<float> three{0.7f, 0.2f, 0.1f, 0.3f, 0.6f, 0.1f, 0.5f, 0.4f, 0.1f};
  const std::vector<int64_t> labels3{0, 1, 0};
  // Class 0: positives {0.7, 0.5} vs {0.3} -> 1. Class 1: positive {0.6} vs {0.2, 0.4} -> 1.
  EXPECT_NEAR(*macro_auc_ovr(three, labels3, 3), 1.0, 1e-12);
  const std::vector<int64_t> wrong{1, 0, 1};  // every score points the other way
  EXPECT_NEAR(*macro_auc_ovr(three, wrong, 3), 0.0, 1e-12);
  EXPECT_FALSE(macro_auc_ovr({0.5f, 0.5f}, {0}, 2).has_value());  // one class only
}

TEST(Training, BatchPlansByHand) {
  EXPECT_EQ(batch_plan(10, 4, 1, 5, false), (std::vector<int64_t>{4, 4, 2, 4, 4}));
  EXPECT_EQ(batch_plan(10, 4, 2, 0, false), (std::vector<int64_t>{4, 4, 2, 4, 4, 2}));
  EXPECT_EQ(batch_plan(9, 4, 1, 5, true), (std::vector<int64_t>{4, 4, 4, 4, 4}));  // the batch of one is left out
  EXPECT_EQ(batch_plan(9, 4, 1, 0, false), (std::vector<int64_t>{4, 4, 1}));
  EXPECT_EQ(batch_plan(1, 4, 1, 3, true), (std::vector<int64_t>{1, 1, 1}));  // a lone sample is still a batch
  EXPECT_EQ(passes_begun(10, 4, 5, false), 2);
  EXPECT_EQ(passes_begun(10, 4, 6, false), 2);
  EXPECT_EQ(passes_begun(10, 4, 7, false), 3);
}

// Local models: the global test scores each on every hospital's split; one global model
// scores the same on both views, the mean of the hospitals' own accuracies.
TEST(Evaluation, LocalAndGlobalTests) {
  const auto local = run_ok("eval-local", four("local"));
  const auto rows = lines(read_file(local + "/hospitals.csv"));
  double sum = 0;
  for (size_t i = rows.size() - 4; i < rows.size(); ++i) sum += std::stod(cells(rows[i])[12]);
  EXPECT_NEAR(std::stod(column(local, "rounds.csv", "global_test_acc", 4)), sum / 4, 1e-5);
  EXPECT_NE(column(local, "rounds.csv", "global_test_acc", 4), column(local, "rounds.csv", "local_test_acc", 4));
  const auto fedavg = run_ok("eval-fedavg", four("fedavg"));
  EXPECT_EQ(column(fedavg, "rounds.csv", "global_test_acc", 4), column(fedavg, "rounds.csv", "local_test_acc", 4));
  EXPECT_FALSE(column(fedavg, "rounds.csv", "auc", 4).empty());
}

}  // namespace
}  // namespace fedgrid

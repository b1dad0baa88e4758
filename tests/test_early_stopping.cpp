// Early stopping (stop.patience, stop.monitor, stop.min_delta; issue 36): every scored round's
// validation figure is compared with the best so far; the run stops stop.patience rounds after
// the best round, summary.json's final figures are that round's (kept_round), and rounds.csv
// keeps every round as it ran. Checked against the rule recomputed from rounds.csv's own
// val_loss / val_accuracy columns, so the tests hold whatever the CPU's arithmetic.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

using test::cells;
using test::lines;
using test::read_file;
using test::run_fedgrid;

// The tiny scenario made to learn unevenly (two classes per hospital, a large step, three local
// epochs): its global model's validation loss falls, jumps back up and falls again, so a
// patience of 3 keeps a middle round and stops well before stop.rounds.
std::string uneven_scenario(const std::string& name, const std::string& extra = "") {
  std::string yaml = test::tiny_scenario(name, extra);
  yaml.replace(yaml.find("scheme: dirichlet, beta: 1.0"), 28, "scheme: shards");
  yaml.replace(yaml.find("training: {lr: 0.05, batch_size: 16}"), 36,
               "training: {lr: 0.1, batch_size: 16, local_epochs: 3}");
  yaml.replace(yaml.find("stop: {rounds: 3}"), 17, "stop: {rounds: 20}");
  return yaml;
}

// rounds.csv read by column name.
struct RoundsTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  size_t column(const std::string& name) const {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return i;
    ADD_FAILURE() << "rounds.csv has no column " << name;
    return 0;
  }
  std::optional<double> real(size_t row, const std::string& name) const {
    const std::string& cell = rows.at(row).at(column(name));
    return cell.empty() ? std::nullopt : std::optional<double>(std::stod(cell));
  }
};

RoundsTable rounds_table(const std::string& out) {
  const auto all = lines(read_file(out + "/rounds.csv"));
  RoundsTable t;
  if (all.empty()) return t;
  t.header = cells(all[0]);
  for (size_t i = 1; i < all.size(); ++i) t.rows.push_back(cells(all[i]));
  return t;
}

// The rule replayed on the figures rounds.csv printed: the round kept and the round the run
// stops after (nullopt: patience never ran out).
struct Replayed {
  int kept = 0;
  std::optional<int> stopped_after;
};

Replayed replay(const RoundsTable& t, const std::string& monitor, int patience, double min_delta) {
  Replayed r;
  std::optional<double> best;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const int round = std::stoi(t.rows[i][0]);
    const auto v = t.real(i, monitor);
    if (!v) continue;
    const bool better = !best || (monitor == "val_loss" ? *v < *best - min_delta : *v > *best + min_delta);
    if (better) best = v, r.kept = round;
    else if (round - r.kept >= patience) {
      r.stopped_after = round;
      break;
    }
  }
  return r;
}

// The run in `out` stopped as stop.patience says, and its summary's final figures are the kept
// round's row. Returns the kept round.
int expect_scored_on_kept_round(const std::string& out, const std::string& monitor, int patience, double min_delta,
                                int max_rounds) {
  const RoundsTable t = rounds_table(out);
  const auto summary = nlohmann::json::parse(read_file(out + "/summary.json"));
  const Replayed expected = replay(t, monitor, patience, min_delta);
  EXPECT_GT(expected.kept, 0) << "no round was scored on " << monitor;
  EXPECT_EQ(summary["kept_round"].get<int>(), expected.kept);
  const int rounds = summary["rounds"].get<int>();
  EXPECT_EQ(int(t.rows.size()), rounds) << "rounds.csv keeps every round that ran";
  if (expected.stopped_after) {
    EXPECT_EQ(summary["stop_reason"], "patience");
    EXPECT_EQ(rounds, *expected.stopped_after);
    EXPECT_EQ(rounds, expected.kept + patience) << "stops exactly stop.patience rounds after the kept one";
  } else {
    EXPECT_EQ(summary["stop_reason"], "rounds");
    EXPECT_EQ(rounds, max_rounds);
  }
  const size_t kept_row = size_t(expected.kept - 1);
  for (const auto& [key, column] : std::vector<std::pair<std::string, std::string>>{
           {"final_accuracy", "accuracy"},
           {"final_f1_macro", "f1_macro"},
           {"final_auc", "auc"},
           {"final_hospital_acc_std", "hospital_acc_std"},
           {"final_local_test_acc", "local_test_acc"}}) {
    const auto row = t.real(kept_row, column);
    EXPECT_TRUE(row.has_value()) << column;
    if (row) EXPECT_NEAR(summary[key].get<double>(), *row, 5e-7) << key << " is round " << expected.kept << "'s " << column;
  }
  double best = 0;
  for (size_t i = 0; i < t.rows.size(); ++i) best = std::max(best, t.real(i, "accuracy").value_or(0));
  EXPECT_NEAR(summary["best_accuracy"].get<double>(), best, 5e-7) << "best_accuracy stays the best round run";
  return expected.kept;
}

TEST(EarlyStopping, StopsPatienceRoundsAfterTheBestValidationLoss) {
  const std::string dir = test::temp_dir("early-loss");
  test::write_file(dir + "/s.yaml", uneven_scenario("early-loss"));
  const auto r = run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/out --log-level warn --set stop.patience=3");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const int kept = expect_scored_on_kept_round(dir + "/out", "val_loss", 3, 0, 20);
  const auto summary = nlohmann::json::parse(read_file(dir + "/out/summary.json"));
  // The scenario is made so that the watched loss rises after its best round: the run must stop early
  // and end on a round other than its last.
  EXPECT_EQ(summary["stop_reason"], "patience");
  EXPECT_GT(kept, 1);

  // rounds.csv keeps every round as run: the same run without early stopping, cut at the same
  // round, has the same rows, less the two validation columns (which it does not write).
  const int rounds = summary["rounds"].get<int>();
  const auto plain = run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/plain --log-level warn --set stop.rounds=" +
                                 std::to_string(rounds));
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  const RoundsTable with = rounds_table(dir + "/out"), without = rounds_table(dir + "/plain");
  ASSERT_EQ(with.header.size(), without.header.size() + 2);
  EXPECT_EQ(with.header[with.header.size() - 2], "val_loss");
  EXPECT_EQ(with.header.back(), "val_accuracy");
  ASSERT_EQ(with.rows.size(), without.rows.size());
  for (size_t i = 0; i < with.rows.size(); ++i)
    EXPECT_EQ(std::vector<std::string>(with.rows[i].begin(), with.rows[i].end() - 2), without.rows[i]) << "round " << i + 1;
  EXPECT_EQ(read_file(dir + "/out/hospitals.csv"), read_file(dir + "/plain/hospitals.csv"));
  EXPECT_EQ(read_file(dir + "/out/events.csv"), read_file(dir + "/plain/events.csv"));
  const auto plain_summary = nlohmann::json::parse(read_file(dir + "/plain/summary.json"));
  EXPECT_FALSE(plain_summary.contains("kept_round"));
  EXPECT_EQ(plain_summary["stop_reason"], "rounds");
}

TEST(EarlyStopping, WatchesValidationAccuracyWithMinDelta) {
  const std::string dir = test::temp_dir("early-accuracy");
  test::write_file(dir + "/s.yaml", uneven_scenario("early-accuracy"));
  const auto r = run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/out --log-level warn --set stop.patience=2 "
                             "--set stop.monitor=val_accuracy --set stop.min_delta=0.02");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_scored_on_kept_round(dir + "/out", "val_accuracy", 2, 0.02, 20);
}

// Local models (one per hospital): each is watched on its own validation split, the mean decides.
TEST(EarlyStopping, WatchesLocalModelsToo) {
  const std::string dir = test::temp_dir("early-local");
  test::write_file(dir + "/s.yaml", uneven_scenario("early-local"));
  const auto r = run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/out --log-level warn --set algorithm.name=local "
                             "--set stop.patience=2 --set stop.rounds=8");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_scored_on_kept_round(dir + "/out", "val_loss", 2, 0, 8);
}

TEST(EarlyStopping, IsDeterministicAndResumesToTheSameBytes) {
  const std::string dir = test::temp_dir("early-resume");
  test::write_file(dir + "/s.yaml", uneven_scenario("early-resume", "output: {checkpoint_every: 2}\n"));
  // Killed after round 5 (the checkpoint after round 4 holds a kept round and its loss), then
  // resumed: the same bytes as the run never interrupted, its stop and its kept round included.
  test::expect_resume_gives_same_bytes(dir, "--log-level warn --set stop.patience=3", 5);
  const auto summary = nlohmann::json::parse(read_file(dir + "/whole/summary.json"));
  EXPECT_GT(summary["rounds"].get<int>(), 5) << "the kill must fall before the stop";
  EXPECT_TRUE(summary.contains("kept_round"));
  const auto again = run_fedgrid("run " + dir + "/s.yaml --out " + dir + "/again --log-level warn --set stop.patience=3");
  ASSERT_EQ(again.exit_code, 0) << again.output;
  for (const char* f : {"rounds.csv", "hospitals.csv", "events.csv", "summary.json"})
    EXPECT_EQ(read_file(dir + "/whole/" + f), read_file(dir + "/again/" + f)) << f;
}

// What early stopping cannot watch is refused by run and validate alike (exit 2, naming the key).
TEST(EarlyStopping, WhatCannotBeWatchedIsAnInputError) {
  const std::string dir = test::temp_dir("early-bad");
  test::write_file(dir + "/s.yaml", test::tiny_scenario("early-bad"));
  const std::vector<std::pair<std::string, std::string>> cases{
      {"--set stop.patience=2 --set data.split.val=0 --set data.split.train=0.8",
       "key 'stop.patience': needs validation splits to watch"},
      {"--set stop.patience=2 --set training.mode=timing-only",
       "key 'stop.patience': watches a validation figure of real training"},
      {"--set stop.monitor=val_accuracy", "key 'stop.monitor': is read only with stop.patience > 0"},
      {"--set stop.min_delta=0.01", "key 'stop.min_delta': is read only with stop.patience > 0"},
      {"--set stop.patience=2 --set stop.monitor=accuracy", "'accuracy' is not one of: val_loss, val_accuracy"},
      {"--set stop.patience=-1", "stop.patience"},
      {"--set stop.patience=2 --set stop.min_delta=-0.1", "stop.min_delta"},
  };
  for (const auto& [sets, expected] : cases)
    for (const char* command : {"run", "validate"}) {
      const auto r = run_fedgrid(std::string(command) + " " + dir + "/s.yaml --out " + dir + "/out " + sets);
      EXPECT_EQ(r.exit_code, 2) << command << " " << sets << "\n" << r.output;
      EXPECT_NE(r.output.find(expected), std::string::npos) << command << " " << sets << ": missing '" << expected
                                                              << "' in\n" << r.output;
    }
}

}  // namespace
}  // namespace fedgrid

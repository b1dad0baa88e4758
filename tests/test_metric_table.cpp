// The metric table (sim/engine/metric_table.cpp) and what is written from it: each declared
// metric is a column of rounds.csv / hospitals.csv in declaration order when its key enables it
// and absent otherwise, each summary entry is in summary.json, checkpoints carry every summary
// figure, and an algorithm's registered columns follow the standard ones. The round ledger and
// the recorder are driven directly (no simulation), with scores made up for two hospitals.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <map>
#include <set>
#include <stdexcept>

#include "helpers.hpp"
#include "sim/engine/evaluation.hpp"
#include "sim/engine/metric_table.hpp"
#include "sim/engine/recorder.hpp"
#include "sim/engine/round_ledger.hpp"
#include "sim/engine/state_file.hpp"
#include "sim/engine/summary_state.hpp"
#include "sim/scenario/scenario.hpp"

namespace fedgrid {
namespace {

const std::vector<std::string> kTiers{"weak", "strong"};

// Two classes; hospital 0 (weak) and 1 (strong) each scored on its own split.
Scores made_up_scores() {
  Scores s;
  s.accuracy = 0.75, s.loss = 0.5, s.auc = 0.8;
  s.confusion = {3, 1, 1, 3};
  s.confusion_of = {{2, 0, 1, 1}, {1, 1, 0, 2}};
  s.accuracy_of = {0.75, 0.75};
  s.auc_of = {0.7, 0.9};
  s.global_accuracy_of = {0.6, 0.8};
  s.global_auc_of = {0.65, 0.85};
  s.tier_model_accuracy = {{"weak", 0.7}, {"strong", 0.8}};
  return s;
}

std::string joined(const std::vector<std::string>& columns) {
  std::string out;
  for (const auto& c : columns) out += (out.empty() ? "" : ",") + c;
  return out;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

size_t cells(const std::string& line) { return size_t(std::count(line.begin(), line.end(), ',')) + 1; }

// The gates a test run opens: its scenario (scenario_of) sets exactly these keys.
struct Switches {
  bool site_metrics = false, faults = false;
};

Scenario scenario_of(Switches on) {
  std::vector<std::string> sets{"output.site_metrics=" + std::string(on.site_metrics ? "true" : "false")};
  if (on.faults) sets.push_back("faults.offline_probability=0.1");
  return builtin_quickstart(sets);
}

// Read off the gates' keys, not their conditions: an independent account of what they open.
bool enabled(const MetricDecl& m, Switches on) {
  return m.gate.key.empty() || (m.gate.key == "output.site_metrics" && on.site_metrics) ||
         (m.gate.key == "faults.*" && on.faults);
}

// A column list read off the declarations themselves, per-tier metrics expanded.
std::string declared_columns(Scope scope, Switches on, const std::vector<std::string>& own = {}) {
  std::vector<std::string> out;
  for (const auto& m : metric_table()) {
    if (m.scope != scope || !enabled(m, on)) continue;
    if (m.kind != MetricKind::PerTier) out.push_back(m.name);
    else
      for (const auto& t : kTiers) out.push_back(m.name + t);
  }
  out.insert(out.end(), own.begin(), own.end());
  return joined(out);
}

const nlohmann::json* at_key(const nlohmann::json& j, const std::string& key) {
  const size_t dot = key.find('.');
  const std::string head = key.substr(0, dot);
  if (!j.contains(head)) return nullptr;
  return dot == std::string::npos ? &j[head] : at_key(j[head], key.substr(dot + 1));
}

// One run of two reported rounds (round 2 unscored), written by a Recorder into `dir`.
struct LedgerRun {
  std::string dir;
  RunSummary summary;
};

LedgerRun run_two_rounds(const std::string& tag, Switches on, const std::vector<std::string>& round_columns = {},
                         const std::vector<std::string>& hospital_columns = {}) {
  const Scenario scenario = scenario_of(on);
  LedgerRun run{test::temp_dir(tag), {}};
  Recorder recorder(run.dir, false);
  const auto metrics = std::make_shared<const RunMetrics>(scenario, round_columns, hospital_columns);
  RunInfo info{scenario.name, "fedavg", scenario.seed, kTiers, {"server", "h0", "h1"}, metrics};
  recorder.on_start(info);
  RoundLedger ledger(scenario, "server", {{0, "h0", "weak"}, {1, "h1", "strong"}}, kTiers, {&recorder}, {}, metrics);
  for (int round = 1; round <= 2; ++round) {
    ledger.count_transfer(round, -1, 0, 100, 1, 0.5);
    ledger.count_transfer(round, 1, -1, 40, 1, 0.25);
    ledger.round(round).stats[0].epochs = 2, ledger.round(round).stats[1].samples = 7;
    for (const auto& c : round_columns) ledger.note(round, -1, c, c + std::to_string(round));
    for (const auto& c : hospital_columns) ledger.note(round, 1, c, "x");
    Scores scores = made_up_scores();
    if (round == 2) {  // not scored: no figure from the evaluation
      scores = Scores{};
      scores.confusion_of.resize(2);
      for (auto* v : {&scores.accuracy_of, &scores.auc_of, &scores.global_accuracy_of, &scores.global_auc_of}) v->resize(2);
    }
    ledger.report(round, scores, double(round), 10.0 * round, 2);
  }
  run.summary = ledger.finish(3.0, 30.0, {{"fedgrid", "test"}}, std::nullopt);
  return run;
}

TEST(MetricTable, DeclarationsAreWellFormed) {
  std::set<std::pair<int, std::string>> names;
  std::set<std::string> keys;
  for (const auto& m : metric_table()) {
    EXPECT_TRUE(names.insert({int(m.scope), m.name}).second) << "declared twice: " << m.name;
    EXPECT_TRUE(bool(m.compute)) << m.name;
    EXPECT_FALSE(m.doc.empty()) << m.name;
    if (m.scope == Scope::Summary) EXPECT_FALSE(m.summary.empty()) << m.name << ": a summary metric with no entry";
    if (m.kind == MetricKind::PerTier) EXPECT_EQ(m.scope, Scope::Round) << m.name;
    for (const auto& e : m.summary) EXPECT_TRUE(keys.insert(e.key).second) << "summary key twice: " << e.key;
  }
  // Every name summary.json's layout places is a run fact or a declared summary key (or the
  // object "a" of keys "a.b").
  const auto& facts = summary_run_facts();
  for (const auto& name : summary_layout()) {
    bool known = std::find(facts.begin(), facts.end(), name) != facts.end() || keys.count(name);
    for (const auto& k : keys) known = known || k.rfind(name + ".", 0) == 0;
    EXPECT_TRUE(known) << "summary_layout names '" << name << "', which nothing declares";
  }
}

TEST(MetricTable, ColumnsAreTheDeclaredOnesInOrder) {
  for (const Switches on : {Switches{false, false}, Switches{true, true}}) {
    const auto run = run_two_rounds(on.site_metrics ? "metric-columns-on" : "metric-columns-off", on);
    const auto rounds = test::lines(test::read_file(run.dir + "/rounds.csv"));
    const auto hospitals = test::lines(test::read_file(run.dir + "/hospitals.csv"));
    ASSERT_EQ(rounds.size(), 3u);
    ASSERT_EQ(hospitals.size(), 5u);
    EXPECT_EQ(rounds[0], declared_columns(Scope::Round, on));
    EXPECT_EQ(hospitals[0], declared_columns(Scope::Hospital, on));
    EXPECT_EQ(rounds[0], joined(RunMetrics(scenario_of(on)).columns(Scope::Round, kTiers)));
    for (const auto& row : rounds) EXPECT_EQ(cells(row), cells(rounds[0])) << row;
    for (const auto& row : hospitals) EXPECT_EQ(cells(row), cells(hospitals[0])) << row;
    // Site columns exist exactly when output.site_metrics enables them.
    EXPECT_EQ(rounds[0].find("site_f1_mean") != std::string::npos, on.site_metrics) << rounds[0];
    EXPECT_EQ(hospitals[0].find("balanced_acc") != std::string::npos, on.site_metrics) << hospitals[0];
  }
}

TEST(MetricTable, SummaryCarriesEveryEnabledEntry) {
  for (const Switches on : {Switches{false, false}, Switches{true, true}}) {
    const auto run = run_two_rounds(on.site_metrics ? "metric-summary-on" : "metric-summary-off", on);
    const auto j = nlohmann::json::parse(test::read_file(run.dir + "/summary.json"));
    for (const auto& m : metric_table())
      for (const auto& e : m.summary) {
        if (enabled(m, on)) {
          ASSERT_NE(at_key(j, e.key), nullptr) << e.key << " missing from summary.json";
          EXPECT_NE(run.summary.find(e.key), nullptr) << e.key;
        } else {
          EXPECT_EQ(at_key(j, e.key), nullptr) << e.key << " written though its key is off";
        }
      }
    // The reductions: final and best from the scored round 1, sums over both rounds.
    EXPECT_DOUBLE_EQ(j["final_accuracy"].get<double>(), 0.75);
    EXPECT_DOUBLE_EQ(j["best_accuracy"].get<double>(), 0.75);
    EXPECT_EQ(j["bytes_down"].get<int64_t>(), 200);
    EXPECT_EQ(j["bytes_total"].get<int64_t>(), 280);
    EXPECT_EQ(j["epoch_transfers"].get<int64_t>(), 4);
    EXPECT_DOUBLE_EQ(j["final_tier_accuracy"]["strong"].get<double>(), 0.8);
    EXPECT_DOUBLE_EQ(j["final_hospital_acc_std"].get<double>(), 0.0);
    // The top level follows summary_layout's order.
    const auto& layout = summary_layout();
    size_t last = 0;
    const auto ordered = nlohmann::ordered_json::parse(test::read_file(run.dir + "/summary.json"));
    for (auto it = ordered.begin(); it != ordered.end(); ++it) {
      const std::string key = it.key();
      const size_t at = size_t(std::find(layout.begin(), layout.end(), key) - layout.begin());
      ASSERT_LT(at, layout.size()) << key;
      EXPECT_GE(at, last) << key << " out of summary_layout's order";
      last = at;
    }
  }
}

// A gate is declared with its metric: a key and a condition, together; each gate's key, set,
// opens it (early stopping's and compression's figures included), and the table a run writes is
// the one its ledger computes (RunInfo::metrics: no observer keeps a copy of the gates).
TEST(MetricTable, GatesAreDeclaredWithTheirMetrics) {
  const std::map<std::string, std::vector<std::string>> opening{
      {"output.site_metrics", {"output.site_metrics=true"}},
      {"faults.*", {"faults.offline_probability=0.1"}},
      {"stop.patience", {"stop.patience=2"}},
      {"compression.*", {"compression.uplink.method=quantize"}},
      {"output.critical_path", {"output.critical_path=true"}}};
  const Scenario plain = builtin_quickstart();
  std::set<std::string> keys;
  for (const auto& m : metric_table()) {
    EXPECT_EQ(m.gate.key.empty(), !m.gate.on) << m.name << ": a gate needs both its key and its condition";
    if (m.gate.key.empty()) continue;
    keys.insert(m.gate.key);
    ASSERT_TRUE(opening.count(m.gate.key)) << m.name << ": gate '" << m.gate.key << "' has no case here";
    EXPECT_FALSE(m.gate.open(plain)) << m.name;
    EXPECT_TRUE(m.gate.open(builtin_quickstart(opening.at(m.gate.key)))) << m.name;
  }
  EXPECT_EQ(keys.size(), opening.size());
  const Scenario early = builtin_quickstart({"stop.patience=2", "compression.uplink.method=quantize"});
  const RunMetrics table(early);
  for (const char* name : {"val_loss", "val_accuracy", "bytes_encoded", "compression_ratio"})
    EXPECT_GE(table.index(Scope::Round, name), 0) << name;
  EXPECT_LT(RunMetrics(plain).index(Scope::Round, "val_loss"), 0);
}

TEST(MetricTable, CheckpointKeepsEverySummaryFigure) {
  const auto run = run_two_rounds("metric-checkpoint", {true, true});
  StateWriter out;
  save_summary(out, "s", run.summary);
  out.save(run.dir + "/state.bin");
  RunSummary back;
  back.figures = RunMetrics(scenario_of({true, true})).initial_figures();
  load_summary(StateReader(run.dir + "/state.bin"), "s", back);
  ASSERT_EQ(back.figures.size(), run.summary.figures.size());
  for (size_t i = 0; i < back.figures.size(); ++i)
    EXPECT_EQ(back.figures[i].value, run.summary.figures[i].value) << back.figures[i].key;
  EXPECT_EQ(back.rounds, 2);
  EXPECT_EQ(back.stop_reason, run.summary.stop_reason);
}

TEST(MetricTable, RegisteredAlgorithmColumnsFollowTheStandardOnes) {
  const auto run = run_two_rounds("metric-algorithm-columns", {}, {"merge", "clusters"}, {"cluster"});
  const auto rounds = test::lines(test::read_file(run.dir + "/rounds.csv"));
  const auto hospitals = test::lines(test::read_file(run.dir + "/hospitals.csv"));
  EXPECT_EQ(rounds[0], declared_columns(Scope::Round, {}, {"merge", "clusters"}));
  EXPECT_EQ(hospitals[0], declared_columns(Scope::Hospital, {}, {"cluster"}));
  EXPECT_TRUE(ends_with(rounds[2], ",merge2,clusters2")) << rounds[2];
  EXPECT_TRUE(ends_with(hospitals[1], ",")) << "h0 noted nothing: an empty cell: " << hospitals[1];
  EXPECT_TRUE(ends_with(hospitals[2], ",x")) << hospitals[2];
  // A column the algorithm did not register is refused.
  const Scenario scenario = builtin_quickstart();
  RoundLedger ledger(scenario, "server", {{0, "h0", "weak"}}, kTiers, {}, {},
                     std::make_shared<const RunMetrics>(scenario, std::vector<std::string>{"merge"}));
  EXPECT_THROW(ledger.note(1, -1, "clusters", "2"), std::logic_error);
}

}  // namespace
}  // namespace fedgrid

#pragma once
// Every figure fedgrid records about rounds, hospitals and the run, declared once
// (metric_table.cpp), as keys are: its output name, its scope (a column of rounds.csv or
// hospitals.csv, or a summary.json entry alone), how it is computed from a round's scores and
// ledger, how summary.json reduces it over the rounds (final, best, sum, last) and the key that
// enables it. The round ledger computes the table, the recorder writes rounds.csv,
// hospitals.csv and summary.json by iterating it, and checkpoints (summary_state) save the
// summary entries it lists. An algorithm's own columns (AlgorithmInfo round_columns /
// hospital_columns, Federation::note) are entries of the same kind, added per run.
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/engine/metric_value.hpp"

namespace fedgrid {

struct Scenario;
struct Scores;
struct RoundState;
struct LedgerRow;
struct CriticalPath;

// Round: a column of rounds.csv; Hospital: a column of hospitals.csv; Summary: computed each
// round like a round's figure but written only as summary.json entries.
enum class Scope { Round, Hospital, Summary };

// How summary.json reduces a figure over the reported rounds. Final: its value in the last
// scored round (one with a global accuracy); Best: its largest value; Sum: the total over
// rounds (0 before any); Last: its value in the last reported round.
enum class Reduce { Final, Best, Sum, Last };

// What turns a declared metric on, declared with it: the key that does, as `fedgrid list
// metrics` names it ("" for always), and the condition on the scenario (none: always). A new
// gated metric is its declaration with a gate (metric_table.cpp's kSiteMetrics, kFaults, ...)
// and its computation; nothing else in the engine changes.
struct Gate {
  std::string key;
  std::function<bool(const Scenario&)> on;
  bool open(const Scenario& s) const { return !on || on(s); }
};

// The words the table is listed in (`fedgrid list metrics`, docs/reference/metrics.md).
const char* output_file(Scope s);       // rounds.csv, hospitals.csv, summary.json
const char* reduction_name(Reduce r);   // final, best, sum, last
const char* kind_name(MetricKind k);    // real, integer, text, per-tier

// What a metric is computed from: one reported round.
struct RoundInputs {
  int round = 0;
  double now = 0, energy_j = 0;
  int num_classes = 0;
  const Scores& scores;
  const RoundState& state;
  const std::vector<LedgerRow>& hospitals;  // by hospital id
  const std::vector<std::string>& tiers;    // present, catalog order
  int64_t hospitals_lost = 0;  // hospitals that lost a job to a crash so far in the run
  const CriticalPath* path = nullptr;  // output.critical_path: what ended the round
};

// A summary.json entry of a metric: its key ("a.b": entry b of object a) and reduction.
struct SummaryEntry {
  std::string key;
  Reduce reduce = Reduce::Final;
};

struct MetricDecl {
  std::string name;  // its column (PerTier: a prefix, one column name + tier per tier)
  Scope scope = Scope::Round;
  MetricKind kind = MetricKind::Real;
  int digits = 6;  // reals: decimals in the CSV files
  Gate gate = {};
  // Its value in a round: of hospital `h` (Scope::Hospital), else of the round (h unused).
  std::function<MetricValue(const RoundInputs& in, size_t h)> compute;
  std::vector<SummaryEntry> summary;  // summary.json entries reduced from it (none: not in it)
  std::string doc;                    // what it is, for readers of the table and the docs
};

// The declared metrics, in the order their columns appear (round, then hospital, then
// summary-only entries).
const std::vector<MetricDecl>& metric_table();

// The metrics one run records: the declared ones whose gate the scenario opens, in declaration
// order, then its algorithm's own columns (texts noted with Federation::note, empty where none
// was). Built once per run (Federation) and handed to the ledger and the observers (RunInfo).
class RunMetrics {
 public:
  RunMetrics(const Scenario& scenario, const std::vector<std::string>& round_columns = {},
             const std::vector<std::string>& hospital_columns = {});
  RunMetrics(const RunMetrics&) = delete;  // summarised() points into it
  RunMetrics& operator=(const RunMetrics&) = delete;
  const std::vector<MetricDecl>& of(Scope scope) const { return by_scope_[size_t(scope)]; }
  // The column names of rounds.csv (Scope::Round) or hospitals.csv (Scope::Hospital), per-tier
  // metrics expanded over `tiers`.
  std::vector<std::string> columns(Scope scope, const std::vector<std::string>& tiers) const;
  // Position of metric `name` in of(scope), or -1.
  int index(Scope scope, std::string_view name) const;
  // The algorithm's own columns of rounds.csv (Scope::Round) or hospitals.csv (Scope::Hospital).
  const std::vector<std::string>& algorithm_columns(Scope scope) const {
    return scope == Scope::Round ? round_columns_ : hospital_columns_;
  }

  // Summary entries: each (metric, entry) in declaration order, with the zero it starts from.
  struct Summarised {
    const MetricDecl* metric;
    const SummaryEntry* entry;
  };
  const std::vector<Summarised>& summarised() const { return summarised_; }
  std::vector<SummaryFigure> initial_figures() const;

 private:
  std::vector<MetricDecl> by_scope_[3];
  std::vector<std::string> round_columns_, hospital_columns_;
  std::vector<Summarised> summarised_;
};

// Reduces `value` (metric's value this round) into `figure`; `scored`: the round has a global
// accuracy and, under early stopping (stop.patience), is the round kept so far (Reduce::Final).
void reduce_into(MetricValue& figure, const MetricValue& value, Reduce reduce, bool scored);

}  // namespace fedgrid

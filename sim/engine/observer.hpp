#pragma once
// What the core emits while a run goes on. Recorder, trace and progress line attach here;
// the round loop is never edited to add a metric, nor is this file: a metric is one entry of
// sim/engine/metric_table.cpp.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/engine/activity.hpp"
#include "sim/engine/metric_value.hpp"
#include "sim/scenario/sections/timing.hpp"

namespace fedgrid {

class RunMetrics;

// A hospital's row of a round (hospitals.csv): its figures, one per metric of
// RunMetrics::of(Scope::Hospital), in that order (sim/engine/metric_table.cpp declares them).
struct HospitalRound {
  int hospital = 0;
  std::string name, tier;
  std::vector<MetricValue> values;
};

// A reported round: its figures (rounds.csv), one per metric of RunMetrics::of(Scope::Round),
// and each hospital's row. Read a figure by its column name: find("accuracy"), real(...).
struct RoundReport {
  int round = 0;
  double sim_time_s = 0;
  std::shared_ptr<const RunMetrics> metrics;  // what `values` and the hospitals' values are
  std::vector<MetricValue> values;
  std::vector<HospitalRound> hospitals;

  // The figure in column `name` of rounds.csv, or of `h`'s row of hospitals.csv; null for a
  // column this run does not have.
  const MetricValue* find(std::string_view name) const;
  const MetricValue* find(const HospitalRound& h, std::string_view name) const;
  std::optional<double> real(std::string_view name) const;
  std::optional<int64_t> integer(std::string_view name) const;
};

struct RunInfo {
  std::string scenario, algorithm;
  uint64_t seed = 0;
  std::vector<std::string> tiers;  // tiers present among hospitals, catalog order
  std::vector<std::string> hosts;  // server first, then hospitals by id
  // The run's metric table (metric_table.hpp): the declared metrics its scenario's gates open,
  // then the algorithm's own columns; the columns of rounds.csv and hospitals.csv.
  std::shared_ptr<const RunMetrics> metrics;
};

// What fixes the arithmetic of the real training, beside the scenario's seed: summary.json
// records it so that two runs can be told apart when their figures differ.
struct Arithmetic {
  std::string device = "cpu";
  int threads_per_worker = 1;
  std::string precision = "fp32";  // training.precision
  bool deterministic = true;       // training.deterministic (what it changes on CUDA)
  std::string fuse = "off";        // training.fuse, as set
};

struct RunSummary {
  std::string scenario, algorithm, stop_reason;
  std::optional<int> kept_round;  // stop.patience: the round whose figures are final (the best watched)
  std::optional<Arithmetic> arithmetic;  // none in timing-only runs (no real training)
  uint64_t seed = 0;
  int rounds = 0;
  std::optional<double> time_to_target_s, target_accuracy;
  double sim_time_s = 0, energy_j = 0;
  // The metrics' summary entries this run has (final_accuracy, bytes_total, faults.*, ...), in
  // declaration order.
  std::vector<SummaryFigure> figures;
  NetworkModel network = NetworkModel::Lv08;  // timing.network (summary.json names fluid and ns3)
  std::vector<std::pair<std::string, std::string>> versions;

  // The figure under summary.json key `key` (nested: "faults.updates_lost"); null if absent.
  const MetricValue* find(std::string_view key) const;
  std::optional<double> real(std::string_view key) const;
  std::optional<int64_t> integer(std::string_view key) const;
};

class Observer {
 public:
  virtual ~Observer() = default;
  virtual void on_start(const RunInfo&) {}
  virtual void on_activity(const Activity&) {}
  virtual void on_round(const RoundReport&) {}
  virtual void on_finish(const RunSummary&) {}
};

}  // namespace fedgrid

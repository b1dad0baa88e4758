#pragma once
// One figure of a round, a hospital's round or the run's summary, as the metric table
// (sim/engine/metric_table.hpp) declares it: what observers receive and the recorder writes.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace fedgrid {

// One value per tier present, in catalog order (rounds.csv: one column each).
using TierFigures = std::vector<std::pair<std::string, std::optional<double>>>;

// What a metric's values are: a real (written with the metric's digits), an integer, a text,
// or one real per tier. The empty alternative is an empty cell (CSV) or null (JSON).
enum class MetricKind { Real, Integer, Text, PerTier };
using MetricValue = std::variant<std::monostate, double, int64_t, std::string, TierFigures>;

// A summary entry of a metric (metric_table.cpp), by its summary.json key ("a.b": b inside
// object a), reduced over the rounds reported so far.
struct SummaryFigure {
  std::string key;
  MetricKind kind = MetricKind::Real;
  MetricValue value;
};

inline std::optional<double> as_real(const MetricValue& v) {
  if (const double* x = std::get_if<double>(&v)) return *x;
  return std::nullopt;
}
inline std::optional<int64_t> as_integer(const MetricValue& v) {
  if (const int64_t* x = std::get_if<int64_t>(&v)) return *x;
  return std::nullopt;
}
// A figure looked up by name (null: the run has no such figure).
inline std::optional<double> as_real(const MetricValue* v) { return v ? as_real(*v) : std::nullopt; }
inline std::optional<int64_t> as_integer(const MetricValue* v) { return v ? as_integer(*v) : std::nullopt; }
inline MetricValue real_or_empty(const std::optional<double>& x) {
  return x ? MetricValue(*x) : MetricValue();
}

}  // namespace fedgrid

#include "sim/engine/summary_state.hpp"

#include "sim/engine/state_file.hpp"

namespace fedgrid {
namespace {

// The run's own figures of RunSummary, then every summary entry of the metric table
// (RunSummary::figures, metric_table.cpp) under its summary.json key, for saving and loading alike.
template <class S, class Visit>
void summary_fields(S& s, Visit&& v) {
  v("stop_reason", s.stop_reason);
  v("kept_round", s.kept_round);
  v("rounds", s.rounds);
  v("time_to_target_s", s.time_to_target_s);
  v("sim_time_s", s.sim_time_s);
  v("energy_j", s.energy_j);
  for (auto& f : s.figures) v(f.key, f.kind, f.value);
}

struct Saver {
  StateWriter& out;
  const std::string& key;
  void operator()(const std::string& name, const std::string& v) { out.put(key + "." + name, v); }
  void operator()(const std::string& name, int v) { out.put(key + "." + name, int64_t(v)); }
  void operator()(const std::string& name, int64_t v) { out.put(key + "." + name, v); }
  void operator()(const std::string& name, double v) { out.put(key + "." + name, v); }
  void operator()(const std::string& name, const std::optional<double>& v) {
    if (v) out.put(key + "." + name, *v);  // absent: no entry
  }
  void operator()(const std::string& name, const std::optional<int>& v) {
    if (v) out.put(key + "." + name, int64_t(*v));  // absent: no entry
  }
  void operator()(const std::string& name, MetricKind, const MetricValue& v) {
    if (const auto* x = std::get_if<double>(&v)) out.put(key + "." + name, *x);
    else if (const auto* i = std::get_if<int64_t>(&v)) out.put(key + "." + name, *i);
    else if (const auto* t = std::get_if<std::string>(&v)) out.put(key + "." + name, *t);
    else if (const auto* tiers = std::get_if<TierFigures>(&v)) (*this)(name, *tiers);
    // empty: no entry
  }
  void operator()(const std::string& name, const TierFigures& v) {
    std::string tiers;
    std::vector<double> values;
    std::vector<int64_t> present;
    for (const auto& [tier, x] : v) tiers += tier + "\n", values.push_back(x.value_or(0)), present.push_back(x.has_value());
    out.put(key + "." + name + ".tiers", tiers);
    out.put(key + "." + name + ".values", values);
    out.put(key + "." + name + ".present", present);
  }
};

struct Loader {
  const StateReader& in;
  const std::string& key;
  void operator()(const std::string& name, std::string& v) { v = in.text(key + "." + name); }
  void operator()(const std::string& name, int& v) { v = int(in.integer(key + "." + name)); }
  void operator()(const std::string& name, int64_t& v) { v = in.integer(key + "." + name); }
  void operator()(const std::string& name, double& v) { v = in.real(key + "." + name); }
  void operator()(const std::string& name, std::optional<double>& v) {
    v.reset();
    if (in.has(key + "." + name)) v = in.real(key + "." + name);
  }
  void operator()(const std::string& name, std::optional<int>& v) {
    v.reset();
    if (in.has(key + "." + name)) v = int(in.integer(key + "." + name));
  }
  void operator()(const std::string& name, MetricKind kind, MetricValue& v) {
    const std::string at = key + "." + name;
    v = MetricValue();
    if (kind == MetricKind::PerTier) {
      TierFigures tiers;
      (*this)(name, tiers);
      v = std::move(tiers);
    } else if (in.has(at)) {
      if (kind == MetricKind::Real) v = in.real(at);
      else if (kind == MetricKind::Integer) v = in.integer(at);
      else v = in.text(at);
    }
  }
  void operator()(const std::string& name, TierFigures& v) {
    v.clear();
    const std::string tiers = in.text(key + "." + name + ".tiers");
    const auto values = in.reals(key + "." + name + ".values");
    const auto present = in.integers(key + "." + name + ".present");
    size_t i = 0, at = 0;
    for (size_t end; (end = tiers.find('\n', at)) != std::string::npos && i < values.size(); at = end + 1, ++i)
      v.push_back({tiers.substr(at, end - at), present.at(i) ? std::optional<double>(values[i]) : std::nullopt});
  }
};

}  // namespace

void save_summary(StateWriter& out, const std::string& key, const RunSummary& s) { summary_fields(s, Saver{out, key}); }

void load_summary(const StateReader& in, const std::string& key, RunSummary& s) { summary_fields(s, Loader{in, key}); }

}  // namespace fedgrid

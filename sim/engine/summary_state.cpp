#include "sim/engine/summary_state.hpp"

#include "sim/engine/state_file.hpp"

namespace fedgrid {
namespace {

// Every running figure of RunSummary, listed once for saving and loading alike.
template <class S, class Visit>
void summary_fields(S& s, Visit&& v) {
  v("stop_reason", s.stop_reason);
  v("rounds", s.rounds);
  v("final_accuracy", s.final_accuracy);
  v("best_accuracy", s.best_accuracy);
  v("time_to_target_s", s.time_to_target_s);
  v("final_f1", s.final_f1);
  v("final_sensitivity", s.final_sensitivity);
  v("final_specificity", s.final_specificity);
  v("epoch_transfers", s.epoch_transfers);
  v("final_tier_model_accuracy", s.final_tier_model_accuracy);
  v("final_tier_gap", s.final_tier_gap);
  v("final_hospital_accuracy_std", s.final_hospital_accuracy_std);
  v("final_auc", s.final_auc);
  v("final_local_test_accuracy", s.final_local_test_accuracy);
  v("final_local_test_auc", s.final_local_test_auc);
  v("final_global_test_accuracy", s.final_global_test_accuracy);
  v("final_global_test_auc", s.final_global_test_auc);
  v("final_site.f1_mean", s.final_site.f1_mean);
  v("final_site.f1_worst", s.final_site.f1_worst);
  v("final_site.bacc_mean", s.final_site.bacc_mean);
  v("final_site.bacc_worst", s.final_site.bacc_worst);
  v("final_site.auc_mean", s.final_site.auc_mean);
  v("final_site.auc_worst", s.final_site.auc_worst);
  v("sim_time_s", s.sim_time_s);
  v("energy_j", s.energy_j);
  v("bytes_up", s.bytes_up);
  v("bytes_down", s.bytes_down);
  v("bytes_peer", s.bytes_peer);
  v("messages", s.messages);
  v("faults.updates_lost", s.fault_totals.updates_lost);
  v("faults.hospitals_lost", s.fault_totals.hospitals_lost);
  v("faults.bytes_wasted", s.fault_totals.bytes_wasted);
  v("faults.sim_time_lost_s", s.fault_totals.sim_time_lost_s);
}

using TierFigures = std::vector<std::pair<std::string, std::optional<double>>>;

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

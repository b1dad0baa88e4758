#include "sim/engine/metric_table.hpp"

#include <algorithm>
#include <map>

#include "sim/engine/critical_path.hpp"
#include "sim/engine/observer.hpp"
#include "sim/engine/scores.hpp"
#include "sim/engine/round_state.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/jobs/evaluation/metrics.hpp"

namespace fedgrid {
namespace {

using In = const RoundInputs&;

// Each hospital's model on its own test split ("site"), macro figures (sim/jobs/evaluation/metrics.hpp),
// as CarPe-FL (Shin et al. 2026) and UnifiedFL (Pala & Rekik 2025) report them. An unscored
// hospital (no test samples: empty matrix) has none.
std::optional<MacroMetrics> site_macro(In in, size_t h) {
  const auto& confusion = in.scores.confusion_of[h];
  if (confusion.empty()) return std::nullopt;
  return macro_metrics(confusion, in.num_classes);
}
std::optional<double> site_f1(In in, size_t h) {
  auto m = site_macro(in, h);
  return m ? std::optional<double>(m->f1) : std::nullopt;
}
std::optional<double> site_bacc(In in, size_t h) {
  const auto& confusion = in.scores.confusion_of[h];
  return confusion.empty() ? std::nullopt : balanced_accuracy(confusion, in.num_classes);
}
std::vector<std::optional<double>> over_sites(In in, std::optional<double> (*of)(In, size_t)) {
  std::vector<std::optional<double>> out;
  for (size_t h = 0; h < in.hospitals.size(); ++h) out.push_back(of(in, h));
  return out;
}

// The global test set's macro figures (empty before scoring or without a matrix).
std::optional<MacroMetrics> global_macro(In in) {
  if (in.scores.confusion.empty()) return std::nullopt;
  return macro_metrics(in.scores.confusion, in.num_classes);
}

// Mean accuracy of each tier's hospitals on their own test splits, summed in hospital order.
TierFigures tier_accuracy(In in) {
  std::map<std::string, std::pair<double, int>> by_tier;
  for (size_t i = 0; i < in.hospitals.size(); ++i)
    if (const auto& a = in.scores.accuracy_of[i]) by_tier[in.hospitals[i].tier].first += *a, by_tier[in.hospitals[i].tier].second++;
  TierFigures out;
  for (const auto& t : in.tiers) {
    auto it = by_tier.find(t);
    out.push_back({t, it == by_tier.end() ? std::nullopt : std::optional<double>(it->second.first / it->second.second)});
  }
  return out;
}

// Accuracy on the global test set of the model each tier holds (DynamicFL's Fig. 2a).
TierFigures tier_model_accuracy(In in) {
  TierFigures out;
  for (const auto& t : in.tiers) {
    auto m = in.scores.tier_model_accuracy.find(t);
    out.push_back({t, m == in.scores.tier_model_accuracy.end() ? std::nullopt : m->second});
  }
  return out;
}

template <class F>
int64_t count_over(In in, F of) {
  int64_t n = 0;
  for (const auto& st : in.state.stats) n += of(st);
  return n;
}

const HospitalStats& stats(In in, size_t h) { return in.state.stats[h]; }

MetricDecl real_metric(std::string name, Scope scope, std::function<std::optional<double>(In, size_t)> of,
                std::vector<SummaryEntry> summary, std::string doc, Gate on = {}, int digits = 6) {
  return {std::move(name), scope, MetricKind::Real, digits, on,
          [of = std::move(of)](In in, size_t h) { return real_or_empty(of(in, h)); }, std::move(summary), std::move(doc)};
}
MetricDecl integer_metric(std::string name, Scope scope, std::function<int64_t(In, size_t)> of,
                   std::vector<SummaryEntry> summary, std::string doc, Gate on = {}) {
  return {std::move(name), scope, MetricKind::Integer, 0, on,
          [of = std::move(of)](In in, size_t h) { return MetricValue(of(in, h)); }, std::move(summary), std::move(doc)};
}
MetricDecl text_metric(std::string name, std::function<std::string(In, size_t)> of, std::string doc) {
  return {std::move(name), Scope::Hospital, MetricKind::Text, 0, Gate{},
          [of = std::move(of)](In in, size_t h) { return MetricValue(of(in, h)); }, {}, std::move(doc)};
}
MetricDecl per_tier(std::string prefix, TierFigures (*of)(In), std::vector<SummaryEntry> summary, std::string doc) {
  return {std::move(prefix), Scope::Round, MetricKind::PerTier, 6, Gate{},
          [of](In in, size_t) { return MetricValue(of(in)); }, std::move(summary), std::move(doc)};
}

constexpr Scope R = Scope::Round, H = Scope::Hospital, S = Scope::Summary;
constexpr Reduce Final = Reduce::Final, Best = Reduce::Best, Sum = Reduce::Sum, Last = Reduce::Last;
// The gates, each a key and its condition: declared faults (faults.*), early stopping's
// validation figures (stop.patience), CarPe-FL's site figures and the per-hospital macro figures
// (output.site_metrics), a codec on either direction (compression.*).
const Gate Site{"output.site_metrics", [](const Scenario& s) { return s.output.site_metrics; }};
const Gate Faults{"faults.*", [](const Scenario& s) { return s.faults.any(); }};
const Gate Patience{"stop.patience", [](const Scenario& s) { return s.stop.patience > 0; }};
const Gate Compression{"compression.*", [](const Scenario& s) { return s.compression.any(); }};
const Gate Critical{"output.critical_path", [](const Scenario& s) { return s.output.critical_path; }};

// A phase of the round's critical path (critical_path.hpp); computed only where the gate is open.
MetricDecl critical_phase(std::string name, double CriticalPath::*phase, std::string doc) {
  return real_metric(std::move(name), Scope::Round,
                     [phase](In in, size_t) { return in.path ? std::optional(in.path->*phase) : std::nullopt; }, {},
                     std::move(doc), Critical, 9);
}

// The table. Column order is the output contract (docs/guide/outputs.md); summary.json orders
// its entries by Recorder's layout (recorder.cpp), a new entry following the listed ones.
std::vector<MetricDecl> declared() {
  return {
      // rounds.csv
      integer_metric("round", R, [](In in, size_t) { return in.round; }, {}, "the round"),
      real_metric("sim_time_s", R, [](In in, size_t) { return in.now; }, {}, "simulated time when the round was reported",
           Gate{}, 9),
      real_metric("accuracy", R, [](In in, size_t) { return in.scores.accuracy; },
           {{"final_accuracy", Final}, {"best_accuracy", Best}},
           "accuracy on the global test set (local models: mean over hospitals); empty in rounds not scored"),
      real_metric("loss", R, [](In in, size_t) { return in.scores.loss; }, {}, "test loss on the global test set"),
      integer_metric("bytes_up", R, [](In in, size_t) { return in.state.bytes_up; }, {{"bytes_up", Sum}},
              "bytes hospital -> server"),
      integer_metric("bytes_down", R, [](In in, size_t) { return in.state.bytes_down; }, {{"bytes_down", Sum}},
              "bytes server -> hospital"),
      integer_metric("messages", R, [](In in, size_t) { return in.state.messages; }, {{"messages", Sum}},
              "transfers (a cohort's transfer counts once per hospital it stands for)"),
      integer_metric("participants", R, [](In in, size_t) { return count_over(in, [](auto& st) { return st.took_part; }); },
              {}, "hospitals that sent or received anything"),
      real_metric("energy_j", R, [](In in, size_t) { return in.energy_j; }, {}, "energy used so far (SimGrid host plugin)",
           Gate{}, 3),
      real_metric("f1_macro", R, [](In in, size_t) { auto m = global_macro(in); return m ? std::optional(m->f1) : std::nullopt; },
           {{"final_f1_macro", Final}}, "macro F1 on the global test set"),
      real_metric("sensitivity_macro", R,
           [](In in, size_t) { auto m = global_macro(in); return m ? std::optional(m->sensitivity) : std::nullopt; },
           {{"final_sensitivity_macro", Final}}, "macro sensitivity (recall) on the global test set"),
      real_metric("specificity_macro", R,
           [](In in, size_t) { auto m = global_macro(in); return m ? std::optional(m->specificity) : std::nullopt; },
           {{"final_specificity_macro", Final}}, "macro specificity on the global test set"),
      integer_metric("epoch_transfers", R, [](In in, size_t) { return count_over(in, [](auto& st) { return st.epochs; }); },
              {{"epoch_transfers", Sum}}, "UniFed's communication measure: hospitals' local epochs this round"),
      per_tier("acc_", tier_accuracy, {}, "per tier: mean accuracy of its hospitals on their own test splits"),
      per_tier("global_acc_", tier_model_accuracy, {{"final_tier_accuracy", Final}},
               "per tier: the model it holds (global or its own) on the global test set (DynamicFL's Fig. 2a)"),
      real_metric("tier_gap", R, [](In in, size_t) { return accuracy_gap(tier_model_accuracy(in)); },
           {{"final_tier_gap", Final}}, "best minus worst of global_acc_<tier>"),
      real_metric("hospital_acc_std", R, [](In in, size_t) { return population_std(in.scores.accuracy_of); },
           {{"final_hospital_acc_std", Final}}, "population std of the hospitals' own-split accuracies"),
      real_metric("auc", R, [](In in, size_t) { return in.scores.auc; }, {{"final_auc", Final}},
           "macro one-vs-rest AUROC on the global test set"),
      // FedSKD's two views, means over hospitals: each model on its own split and on every split.
      real_metric("local_test_acc", R, [](In in, size_t) { return mean_present(in.scores.accuracy_of); },
           {{"final_local_test_acc", Final}}, "mean over hospitals of their model on their own test split"),
      real_metric("local_test_auc", R, [](In in, size_t) { return mean_present(in.scores.auc_of); },
           {{"final_local_test_auc", Final}}, "mean over hospitals of their model's AUROC on their own split"),
      real_metric("global_test_acc", R, [](In in, size_t) { return mean_present(in.scores.global_accuracy_of); },
           {{"final_global_test_acc", Final}}, "mean over hospitals of their model on every hospital's split"),
      real_metric("global_test_auc", R, [](In in, size_t) { return mean_present(in.scores.global_auc_of); },
           {{"final_global_test_auc", Final}}, "mean over hospitals of their model's AUROC on every split"),
      integer_metric("bytes_peer", R, [](In in, size_t) { return in.state.bytes_peer; }, {{"bytes_peer", Sum}},
              "bytes hospital -> hospital"),
      // compression.*: the transfers that went through a codec (bytes_up / down / peer already
      // count them as encoded).
      integer_metric("bytes_encoded", R, [](In in, size_t) { return in.state.codec_encoded_bytes; },
              {{"compression.bytes_encoded", Sum}},
              "bytes of the transfers that went through a codec, as encoded (message header included)", Compression),
      real_metric("compression_ratio", R,
           [](In in, size_t) -> std::optional<double> {
             if (in.state.codec_encoded_bytes == 0) return std::nullopt;
             return double(in.state.codec_raw_bytes) / double(in.state.codec_encoded_bytes);
           },
           {}, "those transfers' uncompressed bytes (4 a value + header) / their encoded bytes; empty with none",
           Compression, 4),
      // output.site_metrics: CarPe-FL's site figures, the mean over the sites and the worst site.
      real_metric("site_f1_mean", R, [](In in, size_t) { return mean_present(over_sites(in, site_f1)); },
           {{"final_site.f1_macro_mean", Final}}, "mean over sites of macro F1", Site),
      real_metric("site_f1_worst", R, [](In in, size_t) { return min_present(over_sites(in, site_f1)); },
           {{"final_site.f1_macro_worst", Final}}, "worst site's macro F1", Site),
      real_metric("site_bacc_mean", R, [](In in, size_t) { return mean_present(over_sites(in, site_bacc)); },
           {{"final_site.balanced_acc_mean", Final}}, "mean over sites of balanced accuracy", Site),
      real_metric("site_bacc_worst", R, [](In in, size_t) { return min_present(over_sites(in, site_bacc)); },
           {{"final_site.balanced_acc_worst", Final}}, "worst site's balanced accuracy", Site),
      real_metric("site_auc_mean", R, [](In in, size_t) { return mean_present(in.scores.auc_of); },
           {{"final_site.auc_mean", Final}}, "mean over sites of macro AUROC", Site),
      real_metric("site_auc_worst", R, [](In in, size_t) { return min_present(in.scores.auc_of); },
           {{"final_site.auc_worst", Final}}, "worst site's macro AUROC", Site),
      // stop.patience: the figures early stopping watches (stop.monitor), in every scored round.
      real_metric("val_loss", R, [](In in, size_t) { return in.scores.val_loss; }, {},
           "loss on the hospitals' validation splits (pooled; local models: mean over hospitals of their own)",
           Patience),
      real_metric("val_accuracy", R, [](In in, size_t) { return in.scores.val_accuracy; }, {},
           "accuracy on the hospitals' validation splits (pooled; local models: mean over hospitals of their own)",
           Patience),
      // output.critical_path: what ended the round, its duration split along the chain.
      {"cp_host", R, MetricKind::Text, 0, Critical,
       [](In in, size_t) { return in.path ? MetricValue(in.path->host) : MetricValue(); }, {},
       "what ended the round: the hospital its critical path passed through (server: none)"},
      critical_phase("cp_downlink_s", &CriticalPath::downlink_s, "critical path: server -> hospital transfers"),
      critical_phase("cp_compute_s", &CriticalPath::compute_s, "critical path: hospitals' compute"),
      critical_phase("cp_uplink_s", &CriticalPath::uplink_s, "critical path: hospital -> server transfers"),
      critical_phase("cp_peer_s", &CriticalPath::peer_s, "critical path: hospital -> hospital transfers"),
      critical_phase("cp_server_s", &CriticalPath::server_s, "critical path: the server's work"),
      critical_phase("cp_idle_s", &CriticalPath::idle_s,
                     "critical path: waits between its activities (the six cp_*_s sum to the round)"),
      real_metric("cp_contention_s", R,
           [](In in, size_t) {
             return in.path && in.path->contention_s >= 0 ? std::optional(in.path->contention_s) : std::nullopt;
           },
           {}, "of the critical path's transfer time, what sharing links added to each transfer alone on its route "
               "(empty under timing.network: ns3)",
           Critical, 9),

      // hospitals.csv
      integer_metric("round", H, [](In in, size_t) { return in.round; }, {}, "the round"),
      text_metric("hospital", [](In in, size_t h) { return in.hospitals[h].name; }, "the hospital's name"),
      text_metric("tier", [](In in, size_t h) { return in.hospitals[h].tier; }, "its tier"),
      integer_metric("samples", H, [](In in, size_t h) { return stats(in, h).samples; }, {}, "samples it trained on"),
      integer_metric("epochs", H, [](In in, size_t h) { return stats(in, h).epochs; }, {}, "local epochs it ran"),
      real_metric("train_loss", H, [](In in, size_t h) { return stats(in, h).train_loss; }, {}, "its training loss"),
      real_metric("accuracy", H, [](In in, size_t h) { return in.scores.accuracy_of[h]; }, {},
           "its model on its own test split (the local test)"),
      real_metric("compute_s", H, [](In in, size_t h) { return stats(in, h).compute_s; }, {}, "simulated compute seconds",
           Gate{}, 9),
      real_metric("comm_s", H, [](In in, size_t h) { return stats(in, h).comm_s; }, {}, "simulated transfer seconds",
           Gate{}, 9),
      integer_metric("bytes_up", H, [](In in, size_t h) { return stats(in, h).bytes_up; }, {}, "bytes it sent"),
      integer_metric("bytes_down", H, [](In in, size_t h) { return stats(in, h).bytes_down; }, {}, "bytes it received"),
      real_metric("auc", H, [](In in, size_t h) { return in.scores.auc_of[h]; }, {}, "its model's AUROC on its own split"),
      real_metric("global_test_acc", H, [](In in, size_t h) { return in.scores.global_accuracy_of[h]; }, {},
           "its model on every hospital's test split, weighted equally"),
      real_metric("global_test_auc", H, [](In in, size_t h) { return in.scores.global_auc_of[h]; }, {},
           "its model's AUROC on every hospital's split"),
      {"staleness", H, MetricKind::Integer, 0, Gate{},
       [](In in, size_t h) {
         const auto& s = stats(in, h).staleness;
         return s ? MetricValue(int64_t(*s)) : MetricValue();
       },
       {},
       "asynchronous algorithms: server versions between the one its update trained on and the one it was applied "
       "to; empty otherwise"},
      text_metric("status",
           [](In in, size_t h) {
             const auto& st = stats(in, h);
             return st.loss.empty() ? (st.took_part ? "ok" : "") : st.loss;
           },
           "ok, offline, crashed or late (faults.*), or empty when the round asked nothing of it"),
      real_metric("precision_macro", H, [](In in, size_t h) { auto m = site_macro(in, h); return m ? std::optional(m->precision) : std::nullopt; },
           {}, "its model on its own split: macro precision", Site),
      real_metric("recall_macro", H, [](In in, size_t h) { auto m = site_macro(in, h); return m ? std::optional(m->sensitivity) : std::nullopt; },
           {}, "its model on its own split: macro recall", Site),
      real_metric("f1_macro", H, [](In in, size_t h) { return site_f1(in, h); }, {}, "its model on its own split: macro F1",
           Site),
      real_metric("balanced_acc", H, [](In in, size_t h) { return site_bacc(in, h); }, {},
           "its model on its own split: balanced accuracy", Site),
      real_metric("idle_s", H,
           [](In in, size_t h) {
             const double end = stats(in, h).last_end_s;
             return end >= 0 ? std::optional(std::max(0.0, in.now - end)) : std::nullopt;
           },
           {}, "from the end of its last activity in the round to the round's end; empty when it did nothing",
           Critical, 9),

      // summary.json only
      integer_metric("bytes_total", S,
              [](In in, size_t) { return in.state.bytes_up + in.state.bytes_down + in.state.bytes_peer; },
              {{"bytes_total", Sum}}, "bytes moved, every direction"),
      integer_metric("updates_lost", S, [](In in, size_t) { return in.state.faults.updates_lost; },
              {{"faults.updates_lost", Sum}}, "updates that never reached their round (offline, crashed, late)",
              Faults),
      integer_metric("hospitals_lost", S, [](In in, size_t) { return in.hospitals_lost; }, {{"faults.hospitals_lost", Last}},
              "hospitals that lost a job to a crash at least once", Faults),
      integer_metric("bytes_wasted", S, [](In in, size_t) { return in.state.faults.bytes_wasted; },
              {{"faults.bytes_wasted", Sum}}, "bytes moved for lost updates (partial transfers included)", Faults),
      real_metric("sim_time_lost_s", S, [](In in, size_t) { return in.state.faults.sim_time_lost_s; },
           {{"faults.sim_time_lost_s", Sum}}, "hospital-seconds of compute and transfer lost updates took", Faults),
      integer_metric("bytes_raw", S, [](In in, size_t) { return in.state.codec_raw_bytes; },
              {{"compression.bytes_raw", Sum}},
              "the compressed transfers' bytes had they crossed uncompressed (the run's ratio: this / "
              "compression.bytes_encoded)", Compression),
  };
}

// An algorithm's own column: the text it noted for the round or the hospital, empty if none.
MetricDecl algorithm_column(const std::string& name, Scope scope) {
  auto compute = [name, scope](In in, size_t h) -> MetricValue {
    const auto& notes = scope == Scope::Round ? in.state.notes : in.state.stats[h].notes;
    auto it = notes.find(name);
    return it == notes.end() ? std::string() : it->second;
  };
  return {name, scope, MetricKind::Text, 0, Gate{}, compute, {}, "the algorithm's own column (AlgorithmInfo)"};
}

}  // namespace

const char* output_file(Scope s) {
  switch (s) {
    case Scope::Round: return "rounds.csv";
    case Scope::Hospital: return "hospitals.csv";
    case Scope::Summary: return "summary.json";
  }
  return "";
}

const char* reduction_name(Reduce r) {
  switch (r) {
    case Reduce::Final: return "final";
    case Reduce::Best: return "best";
    case Reduce::Sum: return "sum";
    case Reduce::Last: return "last";
  }
  return "";
}

const char* kind_name(MetricKind k) {
  switch (k) {
    case MetricKind::Real: return "real";
    case MetricKind::Integer: return "integer";
    case MetricKind::Text: return "text";
    case MetricKind::PerTier: return "per-tier";
  }
  return "";
}

const std::vector<MetricDecl>& metric_table() {
  static const std::vector<MetricDecl> table = declared();
  return table;
}

RunMetrics::RunMetrics(const Scenario& scenario, const std::vector<std::string>& round_columns,
                       const std::vector<std::string>& hospital_columns)
    : round_columns_(round_columns), hospital_columns_(hospital_columns) {
  for (const auto& m : metric_table())
    if (m.gate.open(scenario)) by_scope_[size_t(m.scope)].push_back(m);
  for (const auto& c : round_columns) by_scope_[size_t(Scope::Round)].push_back(algorithm_column(c, Scope::Round));
  for (const auto& c : hospital_columns)
    by_scope_[size_t(Scope::Hospital)].push_back(algorithm_column(c, Scope::Hospital));
  for (const auto& scope : by_scope_)
    for (const auto& m : scope)
      for (const auto& e : m.summary) summarised_.push_back({&m, &e});
}

std::vector<std::string> RunMetrics::columns(Scope scope, const std::vector<std::string>& tiers) const {
  std::vector<std::string> out;
  for (const auto& m : of(scope)) {
    if (m.kind != MetricKind::PerTier) out.push_back(m.name);
    else
      for (const auto& t : tiers) out.push_back(m.name + t);
  }
  return out;
}

int RunMetrics::index(Scope scope, std::string_view name) const {
  const auto& ms = of(scope);
  for (size_t i = 0; i < ms.size(); ++i)
    if (ms[i].name == name) return int(i);
  return -1;
}

std::vector<SummaryFigure> RunMetrics::initial_figures() const {
  std::vector<SummaryFigure> out;
  for (const auto& [m, e] : summarised_) {
    MetricValue zero;
    if (m->kind == MetricKind::PerTier) zero = TierFigures{};
    else if (e->reduce == Reduce::Sum || (e->reduce == Reduce::Last && m->kind == MetricKind::Integer))
      zero = m->kind == MetricKind::Integer ? MetricValue(int64_t(0)) : MetricValue(0.0);
    out.push_back({e->key, m->kind, std::move(zero)});
  }
  return out;
}

void reduce_into(MetricValue& figure, const MetricValue& value, Reduce reduce, bool scored) {
  switch (reduce) {
    case Reduce::Final:
      if (scored) figure = value;
      return;
    case Reduce::Best:
      if (auto v = as_real(value); v && (!as_real(figure) || *v > *as_real(figure))) figure = value;
      return;
    case Reduce::Sum:
      if (auto* x = std::get_if<int64_t>(&figure)) *x += as_integer(value).value_or(0);
      else if (auto* y = std::get_if<double>(&figure)) *y += as_real(value).value_or(0);
      return;
    case Reduce::Last: figure = value; return;
  }
}

const MetricValue* RoundReport::find(std::string_view name) const {
  const int i = metrics ? metrics->index(Scope::Round, name) : -1;
  return i < 0 ? nullptr : &values.at(size_t(i));
}

const MetricValue* RoundReport::find(const HospitalRound& h, std::string_view name) const {
  const int i = metrics ? metrics->index(Scope::Hospital, name) : -1;
  return i < 0 ? nullptr : &h.values.at(size_t(i));
}

std::optional<double> RoundReport::real(std::string_view name) const { return as_real(find(name)); }
std::optional<int64_t> RoundReport::integer(std::string_view name) const { return as_integer(find(name)); }

const MetricValue* RunSummary::find(std::string_view key) const {
  for (const auto& f : figures)
    if (f.key == key) return &f.value;
  return nullptr;
}

std::optional<double> RunSummary::real(std::string_view key) const { return as_real(find(key)); }
std::optional<int64_t> RunSummary::integer(std::string_view key) const { return as_integer(find(key)); }

}  // namespace fedgrid

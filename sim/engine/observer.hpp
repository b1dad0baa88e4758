#pragma once
// What the core emits while a run goes on. Recorder, trace and progress line attach here;
// the round loop is never edited to add a metric.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fedgrid {

// One simulated activity, reported when it ends.
struct Activity {
  double start_s = 0, end_s = 0;
  std::string host;  // where it ran (sender, for a transfer)
  std::string kind;  // compute | send | server
  std::string peer;  // receiver of a transfer, empty otherwise
  int64_t bytes = 0;
  double flops = 0;
  int round = 0;
};

struct HospitalRound {
  int hospital = 0;
  std::string name, tier;
  int64_t samples = 0;
  int epochs = 0;
  std::optional<double> train_loss, accuracy;
  double compute_s = 0, comm_s = 0;
  int64_t bytes_up = 0, bytes_down = 0;  // sent and received (to and from anyone)
  std::optional<double> auc;             // its model on its own test split (with accuracy: the local test)
  std::optional<double> global_test_accuracy, global_test_auc;  // its model on every hospital's test split
  // Asynchronous algorithms: server versions made between the one its update trained on and the
  // one the update was applied to (the largest, for several updates in the round); else empty.
  std::optional<int> staleness;
  // ok (it worked this round and its update counted), offline, crashed or late (faults.*), or
  // empty when the round did not ask it for anything.
  std::string status;
  std::vector<std::string> extra;  // the algorithm's own columns (RunInfo::hospital_columns), in order
  // output.site_metrics: its model on its own test split, macro averages (sim/jobs/metrics.hpp),
  // as UnifiedFL (Pala & Rekik 2025) reports per client; empty in rounds not scored.
  std::optional<double> precision, recall, f1, balanced_accuracy;
};

// output.site_metrics: each hospital's model on its own test split ("site"), as CarPe-FL
// (Shin et al. 2026) reports: macro-F1, balanced accuracy and macro one-vs-rest AUROC, the mean
// over the sites and the worst site.
struct SiteFigures {
  std::optional<double> f1_mean, f1_worst, bacc_mean, bacc_worst, auc_mean, auc_worst;
};

struct RoundReport {
  int round = 0;
  double sim_time_s = 0;
  std::optional<double> accuracy, loss, auc;  // the global test set (local models: mean over hospitals)
  std::optional<double> f1, sensitivity, specificity;  // macro averages (sim/metrics.hpp)
  // FedSKD's two views, means over hospitals: each hospital's model on its own test split, and
  // on every hospital's split weighted equally (one global model: both the same).
  std::optional<double> local_test_accuracy, local_test_auc, global_test_accuracy, global_test_auc;
  // Bytes hospital -> server, server -> hospital, and hospital -> hospital (peer to peer).
  int64_t bytes_up = 0, bytes_down = 0, bytes_peer = 0, messages = 0;
  int participants = 0;
  int64_t epoch_transfers = 0;  // UniFed's communication measure: hospitals' local epochs this round
  double energy_j = 0;
  // Mean accuracy of each tier's hospitals on their own test splits, in catalog order.
  std::vector<std::pair<std::string, std::optional<double>>> tier_accuracy;
  // Fairness (DynamicFL's Fig. 2a): accuracy on the global test set of the model each tier holds
  // (the global model, or the tier's own); the gap between its best and worst tier; and the
  // standard deviation of the hospitals' own-split accuracies. Empty for local models.
  std::vector<std::pair<std::string, std::optional<double>>> tier_model_accuracy;
  std::optional<double> tier_gap, hospital_accuracy_std;
  std::vector<HospitalRound> hospitals;
  std::optional<SiteFigures> site;  // only with output.site_metrics
  std::vector<std::string> extra;  // the algorithm's own columns (RunInfo::round_columns), in order
};

struct RunInfo {
  std::string scenario, algorithm;
  uint64_t seed = 0;
  std::vector<std::string> tiers;  // tiers present among hospitals, catalog order
  std::vector<std::string> hosts;  // server first, then hospitals by id
  bool site_metrics = false;       // output.site_metrics: rounds.csv carries the site_* columns
  // Columns an algorithm adds after the standard ones (AlgorithmInfo: UnifiedFL's clusters);
  // none for most, whose files keep exactly the standard columns.
  std::vector<std::string> round_columns, hospital_columns;
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

// What faults (faults.*) cost the run: updates that never reached their round (offline,
// crashed, late), hospitals that lost a job to a crash at least once, bytes moved for lost updates
// (partial transfers included), and the hospital-seconds of compute and transfer they took.
struct FaultTotals {
  int64_t updates_lost = 0, hospitals_lost = 0, bytes_wasted = 0;
  double sim_time_lost_s = 0;
};

struct RunSummary {
  std::string scenario, algorithm, stop_reason;
  std::optional<Arithmetic> arithmetic;  // none in timing-only runs (no real training)
  uint64_t seed = 0;
  int rounds = 0;
  std::optional<double> final_accuracy, best_accuracy, time_to_target_s, target_accuracy;
  std::optional<double> final_f1, final_sensitivity, final_specificity;
  int64_t epoch_transfers = 0;
  std::vector<std::pair<std::string, std::optional<double>>> final_tier_model_accuracy;
  std::optional<double> final_tier_gap, final_hospital_accuracy_std;
  std::optional<double> final_auc, final_local_test_accuracy, final_local_test_auc, final_global_test_accuracy,
      final_global_test_auc;
  bool site_metrics = false;  // output.site_metrics: summary.json carries final_site
  SiteFigures final_site;
  double sim_time_s = 0, energy_j = 0;
  int64_t bytes_total = 0, bytes_up = 0, bytes_down = 0, bytes_peer = 0, messages = 0;
  FaultTotals fault_totals;
  bool fluid_network = false;  // timing.network: fluid (summary.json says so)
  bool faults = false;  // the scenario declares faults: summary.json reports fault_totals
  std::vector<std::pair<std::string, std::string>> versions;
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

#include "sim/engine/recorder.hpp"

#include <fmt/format.h>
#include <sys/resource.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>

namespace fedgrid {
namespace {

std::string num(double x, int digits = 6) { return fmt::format("{:.{}f}", x, digits); }
std::string opt(const std::optional<double>& x, int digits = 6) { return x ? num(*x, digits) : ""; }

std::ofstream open_out(const std::string& path) {
  std::ofstream f(path, std::ios::trunc);
  if (!f) throw std::runtime_error("cannot write " + path);
  return f;
}

// Times the enclosing scope into output_s_.
struct Timed {
  double& total;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  ~Timed() { total += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }
};

}  // namespace

Recorder::Recorder(const std::string& dir, bool trace, const std::vector<int64_t>& resume_sizes)
    : dir_(dir), trace_(trace), resumed_(!resume_sizes.empty()) {
  std::filesystem::create_directories(dir);
  const std::vector<std::string> names{"rounds.csv", "hospitals.csv", "events.csv", "trace.json"};
  auto open = [&](size_t i) {
    const std::string path = dir + "/" + names[i];
    if (!resumed_) return open_out(path);
    // Rows written after the checkpoint go: the resumed run writes them again.
    if (i >= resume_sizes.size() || !std::filesystem::exists(path) ||
        int64_t(std::filesystem::file_size(path)) < resume_sizes[i])
      throw std::runtime_error(path + " is shorter than its checkpoint says: it cannot be resumed");
    std::filesystem::resize_file(path, uintmax_t(resume_sizes[i]));
    std::ofstream f(path, std::ios::app);
    if (!f) throw std::runtime_error("cannot write " + path);
    return f;
  };
  rounds_ = open(0);
  hospitals_ = open(1);
  events_ = open(2);
  if (trace_) trace_out_ = open(3);
}

std::vector<int64_t> Recorder::sizes() {
  std::vector<int64_t> out;
  for (auto* f : {&rounds_, &hospitals_, &events_, &trace_out_}) out.push_back(f->is_open() ? int64_t(f->tellp()) : 0);
  return out;
}

Recorder::~Recorder() {
  if (trace_out_.is_open()) trace_out_ << "\n]\n";
}

void Recorder::on_start(const RunInfo& info) {
  Timed t{output_s_};
  site_metrics_ = info.site_metrics;
  if (resumed_) {  // headers and track names are in the files already
    int tid = 0;
    for (const auto& host : info.hosts) track_[host] = ++tid;
    first_trace_event_ = false;
    return;
  }
  rounds_ << "round,sim_time_s,accuracy,loss,bytes_up,bytes_down,messages,participants,energy_j,"
             "f1_macro,sensitivity_macro,specificity_macro,epoch_transfers";
  for (const auto& tier : info.tiers) rounds_ << ",acc_" << tier;
  for (const auto& tier : info.tiers) rounds_ << ",global_acc_" << tier;
  rounds_ << ",tier_gap,hospital_acc_std,auc,local_test_acc,local_test_auc,global_test_acc,global_test_auc,bytes_peer";
  if (site_metrics_)
    rounds_ << ",site_f1_mean,site_f1_worst,site_bacc_mean,site_bacc_worst,site_auc_mean,site_auc_worst";
  for (const auto& c : info.round_columns) rounds_ << ',' << c;
  rounds_ << '\n' << std::flush;
  hospitals_ << "round,hospital,tier,samples,epochs,train_loss,accuracy,compute_s,comm_s,bytes_up,bytes_down,auc,"
                "global_test_acc,global_test_auc,staleness,status";
  if (site_metrics_) hospitals_ << ",precision_macro,recall_macro,f1_macro,balanced_acc";
  for (const auto& c : info.hospital_columns) hospitals_ << ',' << c;
  hospitals_ << '\n' << std::flush;
  events_ << "start_s,end_s,host,kind,peer,bytes,flops,round\n" << std::flush;
  if (!trace_) return;
  // The JSON array form of the Chrome trace format: a missing closing bracket is allowed,
  // so a trace cut short by an interrupted run still opens.
  trace_out_ << "[";
  int tid = 0;
  for (const auto& host : info.hosts) {
    track_[host] = ++tid;
    trace_out_ << (first_trace_event_ ? "\n" : ",\n")
               << nlohmann::json{{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", tid},
                                 {"args", {{"name", host}}}}.dump();
    first_trace_event_ = false;
  }
  trace_out_ << std::flush;
}

void Recorder::on_activity(const Activity& a) {
  Timed t{output_s_};
  events_ << num(a.start_s, 9) << ',' << num(a.end_s, 9) << ',' << a.host << ',' << a.kind << ',' << a.peer << ','
          << a.bytes << ',' << fmt::format("{:.0f}", a.flops) << ',' << a.round << '\n'
          << std::flush;
  if (!trace_) return;
  nlohmann::json e{{"name", a.kind == "send" ? "send to " + a.peer : a.kind},
                   {"cat", a.kind},
                   {"ph", "X"},
                   {"pid", 1},
                   {"tid", track_.count(a.host) ? track_[a.host] : 0},
                   {"ts", std::llround(a.start_s * 1e6)},
                   {"dur", std::llround((a.end_s - a.start_s) * 1e6)},
                   {"args", {{"round", a.round}, {"bytes", a.bytes}, {"flops", a.flops}}}};
  trace_out_ << (first_trace_event_ ? "\n" : ",\n") << e.dump() << std::flush;
  first_trace_event_ = false;
}

void Recorder::on_round(const RoundReport& r) {
  Timed t{output_s_};
  rounds_ << r.round << ',' << num(r.sim_time_s, 9) << ',' << opt(r.accuracy) << ',' << opt(r.loss) << ','
          << r.bytes_up << ',' << r.bytes_down << ',' << r.messages << ',' << r.participants << ','
          << num(r.energy_j, 3) << ',' << opt(r.f1) << ',' << opt(r.sensitivity) << ',' << opt(r.specificity) << ','
          << r.epoch_transfers;
  for (const auto& [tier, acc] : r.tier_accuracy) rounds_ << ',' << opt(acc);
  for (const auto& [tier, acc] : r.tier_model_accuracy) rounds_ << ',' << opt(acc);
  rounds_ << ',' << opt(r.tier_gap) << ',' << opt(r.hospital_accuracy_std) << ',' << opt(r.auc) << ','
          << opt(r.local_test_accuracy) << ',' << opt(r.local_test_auc) << ',' << opt(r.global_test_accuracy) << ','
          << opt(r.global_test_auc) << ',' << r.bytes_peer;
  if (site_metrics_) {
    const SiteFigures f = r.site.value_or(SiteFigures{});
    rounds_ << ',' << opt(f.f1_mean) << ',' << opt(f.f1_worst) << ',' << opt(f.bacc_mean) << ',' << opt(f.bacc_worst)
            << ',' << opt(f.auc_mean) << ',' << opt(f.auc_worst);
  }
  for (const auto& v : r.extra) rounds_ << ',' << v;
  rounds_ << '\n' << std::flush;
  for (const auto& h : r.hospitals) {
    hospitals_ << r.round << ',' << h.name << ',' << h.tier << ',' << h.samples << ',' << h.epochs << ','
               << opt(h.train_loss) << ',' << opt(h.accuracy) << ',' << num(h.compute_s, 9) << ','
               << num(h.comm_s, 9) << ',' << h.bytes_up << ',' << h.bytes_down << ',' << opt(h.auc) << ','
               << opt(h.global_test_accuracy) << ',' << opt(h.global_test_auc) << ','
               << (h.staleness ? std::to_string(*h.staleness) : "") << ',' << h.status;
    if (site_metrics_)
      hospitals_ << ',' << opt(h.precision) << ',' << opt(h.recall) << ',' << opt(h.f1) << ','
                 << opt(h.balanced_accuracy);
    for (const auto& v : h.extra) hospitals_ << ',' << v;
    hospitals_ << '\n';
  }
  hospitals_ << std::flush;
}

void Recorder::on_finish(const RunSummary& s) {
  Timed t{output_s_};
  auto optional = [](const std::optional<double>& x) { return x ? nlohmann::json(*x) : nlohmann::json(nullptr); };
  nlohmann::json versions = nlohmann::json::object();
  for (const auto& [k, v] : s.versions) versions[k] = v;
  nlohmann::ordered_json tier_accuracy = nlohmann::ordered_json::object();
  for (const auto& [tier, acc] : s.final_tier_model_accuracy)
    tier_accuracy[tier] = acc ? nlohmann::ordered_json(*acc) : nlohmann::ordered_json(nullptr);
  nlohmann::ordered_json j{{"scenario", s.scenario},
                           {"algorithm", s.algorithm},
                           {"seed", s.seed},
                           {"arithmetic", s.arithmetic ? nlohmann::ordered_json{{"device", s.arithmetic->device},
                                                                                {"threads_per_worker",
                                                                                 s.arithmetic->threads_per_worker},
                                                                                {"precision", s.arithmetic->precision},
                                                                                {"deterministic",
                                                                                 s.arithmetic->deterministic},
                                                                                {"fuse", s.arithmetic->fuse}}
                                                       : nlohmann::ordered_json(nullptr)},
                           {"rounds", s.rounds},
                           {"stop_reason", s.stop_reason},
                           {"final_accuracy", optional(s.final_accuracy)},
                           {"best_accuracy", optional(s.best_accuracy)},
                           {"final_f1_macro", optional(s.final_f1)},
                           {"final_sensitivity_macro", optional(s.final_sensitivity)},
                           {"final_specificity_macro", optional(s.final_specificity)},
                           {"sim_time_s", s.sim_time_s},
                           {"target_accuracy", optional(s.target_accuracy)},
                           {"time_to_target_s", optional(s.time_to_target_s)},
                           {"bytes_total", s.bytes_total},
                           {"bytes_up", s.bytes_up},
                           {"bytes_down", s.bytes_down},
                           {"bytes_peer", s.bytes_peer},
                           {"messages", s.messages},
                           {"epoch_transfers", s.epoch_transfers},
                           {"final_tier_accuracy", tier_accuracy},
                           {"final_tier_gap", optional(s.final_tier_gap)},
                           {"final_hospital_acc_std", optional(s.final_hospital_accuracy_std)},
                           {"final_auc", optional(s.final_auc)},
                           {"final_local_test_acc", optional(s.final_local_test_accuracy)},
                           {"final_local_test_auc", optional(s.final_local_test_auc)},
                           {"final_global_test_acc", optional(s.final_global_test_accuracy)},
                           {"final_global_test_auc", optional(s.final_global_test_auc)},
                           {"energy_j", s.energy_j},
                           {"versions", versions}};
  if (s.faults) {
    const auto& f = s.fault_totals;
    j["faults"] = nlohmann::ordered_json{{"updates_lost", f.updates_lost},
                                         {"hospitals_lost", f.hospitals_lost},
                                         {"bytes_wasted", f.bytes_wasted},
                                         {"sim_time_lost_s", f.sim_time_lost_s}};
  }
  if (s.site_metrics) {
    const auto& f = s.final_site;
    j["final_site"] = nlohmann::ordered_json{{"f1_macro_mean", optional(f.f1_mean)},   {"f1_macro_worst", optional(f.f1_worst)},
                                             {"balanced_acc_mean", optional(f.bacc_mean)},
                                             {"balanced_acc_worst", optional(f.bacc_worst)},
                                             {"auc_mean", optional(f.auc_mean)},       {"auc_worst", optional(f.auc_worst)}};
  }
  if (s.fluid_network)
    j["network"] = nlohmann::ordered_json{
        {"model", "fluid"},
        {"note", "transfers to and from the server shared by fedgrid's incremental max-min model of cm02, not by "
                 "SimGrid's solver (README \"Timing-only runs\": its measured difference from cm02)"}};
  open_out(dir_ + "/summary.json") << j.dump(2) << "\n";
}

void write_perf_json(const std::string& dir, const std::map<std::string, double>& figures) {
  nlohmann::json j(figures);
  open_out(dir + "/perf.json") << j.dump(2) << "\n";
}

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / 1024.0;  // ru_maxrss is KiB on Linux
}

}  // namespace fedgrid

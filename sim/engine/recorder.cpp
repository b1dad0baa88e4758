#include "sim/engine/recorder.hpp"

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "sim/engine/metric_table.hpp"

namespace fedgrid {
namespace {

std::string num(double x, int digits = 6) { return fmt::format("{:.{}f}", x, digits); }

std::ofstream open_out(const std::string& path) {
  std::ofstream f(path, std::ios::trunc);
  if (!f) throw std::runtime_error("cannot write " + path);
  return f;
}

void write_header(std::ofstream& out, const std::vector<std::string>& columns) {
  for (size_t i = 0; i < columns.size(); ++i) out << (i ? "," : "") << columns[i];
  out << '\n' << std::flush;
}

// The text of each column's last real, kept over one round's hospitals.csv rows: identical
// hospitals (timing.cohorts' members, a tier's equals) follow one another with the same figures,
// and formatting a real is most of what writing a row costs.
struct LastReals {
  std::vector<uint64_t> bits;  // the value's bits (so that -0.0 and 0.0 stay apart)
  std::vector<std::string> text;
  std::vector<bool> set;
};

// A row: each metric's cell (a real with its metric's digits, an integer, a text), a per-tier
// metric one cell per tier. Formatted into one buffer and written at once: hospitals.csv has a
// row per hospital and round (a million at 100,000 hospitals and 10 rounds), where a string
// and a stream insertion per cell were most of the time spent writing it.
void write_row(std::ofstream& out, const std::vector<MetricDecl>& metrics, const std::vector<MetricValue>& values,
               LastReals* last = nullptr) {
  fmt::memory_buffer row;
  auto cell = std::back_inserter(row);
  if (last && last->set.size() != metrics.size())
    last->bits.assign(metrics.size(), 0), last->text.assign(metrics.size(), ""), last->set.assign(metrics.size(), false);
  auto real = [&](size_t i, double x) {
    if (!last) return void(fmt::format_to(cell, "{:.{}f}", x, metrics[i].digits));
    const auto bits = std::bit_cast<uint64_t>(x);
    if (!last->set[i] || last->bits[i] != bits)
      last->text[i] = fmt::format("{:.{}f}", x, metrics[i].digits), last->bits[i] = bits, last->set[i] = true;
    row.append(last->text[i].data(), last->text[i].data() + last->text[i].size());
  };
  auto next = [&, first = true]() mutable {
    if (!first) row.push_back(',');
    first = false;
  };
  for (size_t i = 0; i < metrics.size(); ++i) {
    const MetricValue& v = values[i];
    if (const auto* tiers = std::get_if<TierFigures>(&v)) {
      for (const auto& [tier, x] : *tiers) {
        next();
        if (x) fmt::format_to(cell, "{:.{}f}", *x, metrics[i].digits);
      }
      continue;
    }
    next();
    if (const auto* x = std::get_if<double>(&v)) real(i, *x);
    else if (const auto* n = std::get_if<int64_t>(&v)) fmt::format_to(cell, "{}", *n);
    else if (const auto* t = std::get_if<std::string>(&v)) row.append(t->data(), t->data() + t->size());
  }
  row.push_back('\n');
  out.write(row.data(), std::streamsize(row.size()));
}

nlohmann::ordered_json json_of(const MetricValue& v) {
  if (const auto* x = std::get_if<double>(&v)) return *x;
  if (const auto* i = std::get_if<int64_t>(&v)) return *i;
  if (const auto* t = std::get_if<std::string>(&v)) return *t;
  if (const auto* tiers = std::get_if<TierFigures>(&v)) {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const auto& [tier, x] : *tiers) out[tier] = x ? nlohmann::ordered_json(*x) : nlohmann::ordered_json(nullptr);
    return out;
  }
  return nullptr;
}

// Times the enclosing scope into output_s_.
struct Timed {
  double& total;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  ~Timed() { total += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }
};

// The files the recorder writes, in the order of sizes() and of a checkpoint's outputs.sizes.
const char* const kRecordedFiles[] = {"rounds.csv", "hospitals.csv", "events.csv", "trace.json"};

}  // namespace

Recorder::Recorder(const std::string& dir, bool trace, const std::vector<int64_t>& resume_sizes)
    : dir_(dir), trace_(trace), resumed_(!resume_sizes.empty()) {
  std::filesystem::create_directories(dir);
  auto open = [&](size_t i) {
    const std::string path = dir + "/" + kRecordedFiles[i];
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

std::array<std::ofstream*, 4> Recorder::streams() { return {&rounds_, &hospitals_, &events_, &trace_out_}; }

std::vector<int64_t> Recorder::sizes() {
  std::vector<int64_t> out;
  for (auto* f : streams()) out.push_back(f->is_open() ? int64_t(f->tellp()) : 0);
  return out;
}

void Recorder::discard() {
  if (resumed_) return;
  const auto files = streams();
  for (size_t i = 0; i < files.size(); ++i)
    if (files[i]->is_open()) {
      files[i]->close();
      std::error_code ec;
      std::filesystem::remove(dir_ + "/" + kRecordedFiles[i], ec);
    }
}

Recorder::~Recorder() {
  if (trace_out_.is_open()) trace_out_ << "\n]\n";
}

void Recorder::on_start(const RunInfo& info) {
  Timed t{output_s_};
  if (resumed_) {  // headers and track names are in the files already
    int tid = 0;
    for (const auto& host : info.hosts) track_[host] = ++tid;
    first_trace_event_ = false;
    return;
  }
  const RunMetrics& metrics = *info.metrics;
  write_header(rounds_, metrics.columns(Scope::Round, info.tiers));
  write_header(hospitals_, metrics.columns(Scope::Hospital, info.tiers));
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
  write_row(rounds_, r.metrics->of(Scope::Round), r.values);
  LastReals last;
  for (const auto& h : r.hospitals) write_row(hospitals_, r.metrics->of(Scope::Hospital), h.values, &last);
  rounds_ << std::flush;
  hospitals_ << std::flush;
}

const std::vector<std::string>& summary_layout() {
  static const std::vector<std::string> layout{
      "scenario",          "algorithm",           "seed",
      "arithmetic",        "rounds",              "stop_reason",       "kept_round",
      "final_accuracy",    "best_accuracy",       "final_f1_macro",
      "final_sensitivity_macro", "final_specificity_macro", "sim_time_s",
      "target_accuracy",   "time_to_target_s",    "bytes_total",
      "bytes_up",          "bytes_down",          "bytes_peer",
      "messages",          "epoch_transfers",     "final_tier_accuracy",
      "final_tier_gap",    "final_hospital_acc_std", "final_auc",
      "final_local_test_acc", "final_local_test_auc", "final_global_test_acc",
      "final_global_test_auc", "energy_j",        "versions",
      "faults",            "final_site",          "network"};
  return layout;
}

const std::vector<std::string>& summary_run_facts() {
  static const std::vector<std::string> facts{"scenario",   "algorithm",       "seed",     "arithmetic",
                                              "rounds",     "stop_reason",     "kept_round", "sim_time_s", "target_accuracy",
                                              "time_to_target_s", "energy_j", "versions", "network"};
  return facts;
}

void Recorder::on_finish(const RunSummary& s) {
  Timed t{output_s_};
  auto optional = [](const std::optional<double>& x) { return x ? nlohmann::json(*x) : nlohmann::json(nullptr); };
  // The run's own facts, by summary.json key; absent where the run has none to say.
  auto fact = [&](const std::string& key) -> std::optional<nlohmann::ordered_json> {
    if (key == "scenario") return s.scenario;
    if (key == "algorithm") return s.algorithm;
    if (key == "seed") return s.seed;
    if (key == "arithmetic")
      return s.arithmetic ? nlohmann::ordered_json{{"device", s.arithmetic->device},
                                                   {"threads_per_worker", s.arithmetic->threads_per_worker},
                                                   {"precision", s.arithmetic->precision},
                                                   {"deterministic", s.arithmetic->deterministic},
                                                   {"fuse", s.arithmetic->fuse}}
                          : nlohmann::ordered_json(nullptr);
    if (key == "rounds") return s.rounds;
    if (key == "stop_reason") return s.stop_reason;
    if (key == "kept_round") return s.kept_round ? std::optional<nlohmann::ordered_json>(*s.kept_round) : std::nullopt;
    if (key == "sim_time_s") return s.sim_time_s;
    if (key == "target_accuracy") return optional(s.target_accuracy);
    if (key == "time_to_target_s") return optional(s.time_to_target_s);
    if (key == "energy_j") return s.energy_j;
    if (key == "versions") {
      nlohmann::json versions = nlohmann::json::object();
      for (const auto& [k, v] : s.versions) versions[k] = v;
      return versions;
    }
    if (key == "network" && s.network == NetworkModel::Fluid)
      return nlohmann::ordered_json{
          {"model", "fluid"},
          {"note", "transfers to and from the server shared by fedgrid's incremental max-min model of cm02, not by "
                   "SimGrid's solver (docs/performance.md, \"Timing-only runs and cohorts\": its measured difference "
                   "from cm02)"}};
    if (key == "network" && s.network == NetworkModel::Ns3)
      return nlohmann::ordered_json{
          {"model", "ns3"},
          {"note", "every transfer a TCP connection simulated packet by packet by ns-3, TCP as timing.tcp.* sets it "
                   "(docs/guide/time-model.md, \"Packet level\")"}};
    return std::nullopt;
  };
  // The metrics' summary entries: "a.b" is entry b of object a, placed where a is.
  nlohmann::ordered_json figures = nlohmann::ordered_json::object();
  for (const auto& f : s.figures) {
    const size_t dot = f.key.find('.');
    if (dot == std::string::npos) figures[f.key] = json_of(f.value);
    else figures[f.key.substr(0, dot)][f.key.substr(dot + 1)] = json_of(f.value);
  }
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  const auto& facts = summary_run_facts();
  for (const auto& key : summary_layout()) {
    if (std::find(facts.begin(), facts.end(), key) != facts.end()) {
      if (auto v = fact(key)) j[key] = std::move(*v);
    } else if (figures.contains(key)) {
      j[key] = std::move(figures[key]);
    }
  }
  for (auto it = figures.begin(); it != figures.end(); ++it)  // a figure the layout does not name follows
    if (!j.contains(it.key())) j[it.key()] = *it;
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

#include "sim/engine/round_ledger.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <stdexcept>
#include <utility>

#include "sim/engine/crash_points.hpp"
#include "sim/engine/critical_path.hpp"
#include "sim/engine/state_file.hpp"
#include "sim/engine/summary_state.hpp"

namespace fedgrid {
RoundLedger::RoundLedger(const Scenario& scenario, std::string server, std::vector<LedgerRow> hospitals,
                         std::vector<std::string> tiers, std::vector<Observer*> observers, std::function<void()> on_stop,
                         std::shared_ptr<const RunMetrics> metrics)
    : scenario_(scenario),
      server_(std::move(server)),
      hospitals_(std::move(hospitals)),
      tiers_(std::move(tiers)),
      observers_(std::move(observers)),
      on_stop_(std::move(on_stop)),
      metrics_(std::move(metrics)) {
  summary_.figures = metrics_->initial_figures();
  summary_.scenario = scenario.name;
  summary_.algorithm = scenario.algorithm.name;
  summary_.seed = scenario.seed;
  summary_.target_accuracy = scenario.stop.target_accuracy;
}

void RoundLedger::note(int r, int hospital, const std::string& column, std::string value) {
  const auto& declared = metrics_->algorithm_columns(hospital < 0 ? Scope::Round : Scope::Hospital);
  if (std::find(declared.begin(), declared.end(), column) == declared.end())
    throw std::logic_error("column '" + column + "' is not declared by the algorithm (AlgorithmInfo)");
  RoundState& state = round(r);
  (hospital < 0 ? state.notes : state.stats.at(size_t(hospital)).notes)[column] = std::move(value);
}

RoundState& RoundLedger::round(int r) {
  auto& state = rounds_[r];
  if (state.stats.empty()) state.stats.resize(hospitals_.size());
  return state;
}

void RoundLedger::count_transfer(int r, int from, int to, int64_t bytes, int64_t k, double seconds) {
  auto& state = round(r);
  state.messages += k;
  if (from < 0) state.bytes_down += bytes * k;
  else if (to < 0) state.bytes_up += bytes * k;
  else state.bytes_peer += bytes * k;
  if (from >= 0) {
    auto& st = state.stats[size_t(from)];
    st.bytes_up += bytes, st.comm_s += seconds, st.took_part = true;
  }
  if (to >= 0) {
    auto& st = state.stats[size_t(to)];
    st.bytes_down += bytes, st.comm_s += seconds, st.took_part = true;
  }
}

void RoundLedger::note_loss(int r, int h, const std::string& why, int64_t bytes, double seconds) {
  auto& state = round(r);
  auto& st = state.stats[size_t(h)];
  if (st.loss.empty() || why == "crashed") st.loss = why;  // a crash outranks what else befell it
  state.faults.updates_lost += 1;
  waste(r, bytes, seconds);
}

void RoundLedger::waste(int r, int64_t bytes, double seconds) {
  auto& f = round(r).faults;
  f.bytes_wasted += bytes, f.sim_time_lost_s += seconds;
}

bool RoundLedger::done(int round, double now) {
  const auto& stop = scenario_.stop;
  auto& reason = summary_.stop_reason;
  if (!reason.empty()) return true;  // already decided (a round ran past the time budget)
  if (target_reached_) reason = "target_accuracy";
  else if (patience_spent_) reason = "patience";
  else if (round > stop.rounds) reason = "rounds";
  else if (stop.sim_time_budget_s && now >= *stop.sim_time_budget_s) reason = "sim_time_budget";
  return !reason.empty();
}

void RoundLedger::stop() {
  stopping_ = true;
  if (on_stop_) on_stop_();
}

void RoundLedger::emit(std::vector<Activity>& activities) {
  for (auto& a : activities)
    for (auto* o : observers_) o->on_activity(a);
}

void RoundLedger::close_activities(int round, RoundState& state) {
  while (!rounds_.empty() && rounds_.begin()->first < round) {
    emit(rounds_.begin()->second.activities);
    rounds_.erase(rounds_.begin());
  }
  emit(state.activities);
  for (size_t i = 0; i < hospitals_.size(); ++i) {
    const int64_t id = hospitals_[i].id;
    if (state.stats[i].loss == "crashed" && !std::binary_search(crashed_.begin(), crashed_.end(), id))
      crashed_.insert(std::upper_bound(crashed_.begin(), crashed_.end(), id), id);
  }
}

void RoundLedger::report(int round, const Scores& scores, double now, double energy_j, int num_classes) {
  const auto& budget = scenario_.stop.sim_time_budget_s;
  RoundState state = std::move(this->round(round));
  rounds_.erase(round);
  if (over_budget_ || (budget && now > *budget)) {  // this round did not fit: it never happened
    over_budget_ = true;
    summary_.stop_reason = "sim_time_budget";
    stop();
    return;
  }
  close_activities(round, state);
  RoundInputs in{round, now, energy_j, num_classes, scores, state, hospitals_, tiers_, int64_t(crashed_.size())};
  // output.critical_path: the chain back to the previous report (the run's start for the first).
  std::optional<CriticalPath> path;
  if (scenario_.output.critical_path) {
    const double start = summary_.rounds > 0 ? summary_.sim_time_s : 0.0;
    path = critical_path(state.activities, start, now, server_);
    const double split = path->downlink_s + path->compute_s + path->uplink_s + path->peer_s + path->server_s + path->idle_s;
    if (std::abs(split - (now - start)) > 1e-9)
      throw std::logic_error("round " + std::to_string(round) + "'s critical path sums to " + std::to_string(split) +
                             " s, not its " + std::to_string(now - start) + " s");
    in.path = &*path;
  }
  const RunMetrics& table = *metrics_;
  RoundReport r;
  r.round = round;
  r.sim_time_s = now;
  r.metrics = metrics_;
  for (const auto& m : table.of(Scope::Round)) r.values.push_back(m.compute(in, 0));
  for (size_t i = 0; i < hospitals_.size(); ++i) {
    const auto& h = hospitals_[i];
    r.hospitals.push_back({h.id, h.name, h.tier, {}});
    auto& values = r.hospitals.back().values;
    values.reserve(table.of(Scope::Hospital).size());
    for (const auto& m : table.of(Scope::Hospital)) values.push_back(m.compute(in, i));
  }
  for (auto* o : observers_) o->on_round(r);

  // The run's figures: each summary entry reduced with this round's value.
  auto& s = summary_;
  s.rounds = round;
  s.sim_time_s = now;
  s.energy_j = energy_j;
  const bool scored = scores.accuracy.has_value();
  // Under early stopping, final figures are the kept round's: only a kept round updates them.
  const bool final_now = scenario_.stop.patience > 0 ? scored && keeps(round, scores) : scored;
  const auto& summarised = table.summarised();
  for (size_t k = 0; k < summarised.size(); ++k) {
    const auto& [metric, entry] = summarised[k];
    const int i = table.index(metric->scope, metric->name);
    const MetricValue value = metric->scope == Scope::Round ? r.values[size_t(i)] : metric->compute(in, 0);
    reduce_into(s.figures[k].value, value, entry->reduce, final_now);
  }
  if (scored) {
    const auto& target = scenario_.stop.target_accuracy;
    if (target && *scores.accuracy >= *target && !s.time_to_target_s) {
      s.time_to_target_s = now;
      target_reached_ = true;
      stop();
    }
  }
  crash_point("round-reported");
}

bool RoundLedger::keeps(int round, const Scores& scores) {
  const auto& rule = scenario_.stop;
  const bool loss = rule.monitor == StopMonitor::ValLoss;
  const std::optional<double> value = loss ? scores.val_loss : scores.val_accuracy;
  if (!value) return false;  // nothing to watch (no hospital's validation split was scored)
  const bool better = !std::isnan(*value) &&
                      (!best_watched_ || (loss ? *value < *best_watched_ - rule.min_delta
                                               : *value > *best_watched_ + rule.min_delta));
  if (better) {
    best_watched_ = value;
    summary_.kept_round = round;
    return true;
  }
  if (summary_.kept_round && round - *summary_.kept_round >= rule.patience && !patience_spent_) {
    patience_spent_ = true;
    stop();
  }
  return false;
}

namespace {

std::string joined(const std::vector<Activity>& as, std::string Activity::*field) {
  std::string out;
  for (const auto& a : as) out += a.*field + "\n";
  return out;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  for (size_t at = 0, end; (end = text.find('\n', at)) != std::string::npos; at = end + 1)
    out.push_back(text.substr(at, end - at));
  return out;
}

// An open round's counters, each kept in checkpoints under its own name (not by position, so
// that a counter added to RoundState or HospitalStats is one line here and moves no other).
constexpr std::pair<const char*, int64_t RoundState::*> kRoundCounters[] = {
    {"bytes_up", &RoundState::bytes_up},
    {"bytes_down", &RoundState::bytes_down},
    {"bytes_peer", &RoundState::bytes_peer},
    {"messages", &RoundState::messages},
    {"codec_raw_bytes", &RoundState::codec_raw_bytes},
    {"codec_encoded_bytes", &RoundState::codec_encoded_bytes}};

// One figure of every hospital's HospitalStats, kept as one list over hospitals (by id).
template <class T>
struct HospitalColumn {
  const char* name;
  std::function<T(const HospitalStats&)> get;
  std::function<void(HospitalStats&, T)> set;
  std::vector<T> save(const std::vector<HospitalStats>& stats) const {
    std::vector<T> out;
    for (const auto& st : stats) out.push_back(get(st));
    return out;
  }
  void load(const std::vector<T>& values, std::vector<HospitalStats>& stats) const {
    for (size_t h = 0; h < stats.size(); ++h) set(stats[h], values.at(h));
  }
};
const HospitalColumn<int64_t> kHospitalCounters[] = {
    {"samples", [](const HospitalStats& s) { return s.samples; }, [](HospitalStats& s, int64_t v) { s.samples = v; }},
    {"epochs", [](const HospitalStats& s) { return int64_t(s.epochs); }, [](HospitalStats& s, int64_t v) { s.epochs = int(v); }},
    {"bytes_up", [](const HospitalStats& s) { return s.bytes_up; }, [](HospitalStats& s, int64_t v) { s.bytes_up = v; }},
    {"bytes_down", [](const HospitalStats& s) { return s.bytes_down; }, [](HospitalStats& s, int64_t v) { s.bytes_down = v; }},
    {"took_part", [](const HospitalStats& s) { return int64_t(s.took_part); },
     [](HospitalStats& s, int64_t v) { s.took_part = v != 0; }},
    {"has_train_loss", [](const HospitalStats& s) { return int64_t(s.train_loss.has_value()); },
     [](HospitalStats& s, int64_t v) { s.train_loss = v ? std::optional<double>(0.0) : std::nullopt; }}};
// Loaded after has_train_loss, so that train_loss fills only the losses that were there.
const HospitalColumn<double> kHospitalFigures[] = {
    {"compute_s", [](const HospitalStats& s) { return s.compute_s; }, [](HospitalStats& s, double v) { s.compute_s = v; }},
    {"comm_s", [](const HospitalStats& s) { return s.comm_s; }, [](HospitalStats& s, double v) { s.comm_s = v; }},
    {"last_end_s", [](const HospitalStats& s) { return s.last_end_s; },
     [](HospitalStats& s, double v) { s.last_end_s = v; }},
    {"train_loss", [](const HospitalStats& s) { return s.train_loss.value_or(0); },
     [](HospitalStats& s, double v) {
       if (s.train_loss) s.train_loss = v;
     }}};

}  // namespace

void RoundLedger::save(StateWriter& out) const {
  save_summary(out, "ledger.summary", summary_);
  std::vector<int64_t> open;
  for (const auto& [r, state] : rounds_) {
    open.push_back(r);
    const std::string key = "ledger.round." + std::to_string(r);
    const auto& as = state.activities;
    std::vector<double> start, end, flops, alone;
    std::vector<int64_t> bytes, round;
    for (const auto& a : as)
      start.push_back(a.start_s), end.push_back(a.end_s), flops.push_back(a.flops), bytes.push_back(a.bytes),
          round.push_back(a.round), alone.push_back(a.alone_s);
    out.put(key + ".start", start), out.put(key + ".end", end), out.put(key + ".flops", flops);
    out.put(key + ".alone", alone);
    out.put(key + ".bytes", bytes), out.put(key + ".round", round);
    out.put(key + ".host", joined(as, &Activity::host)), out.put(key + ".kind", joined(as, &Activity::kind));
    out.put(key + ".peer", joined(as, &Activity::peer));
    std::string losses;
    for (const auto& st : state.stats) losses += st.loss + "\n";
    out.put(key + ".stats.loss", losses);
    if (!state.notes.empty()) throw std::logic_error("checkpoint with an algorithm's column noted in an open round");
    for (const auto& st : state.stats) {
      if (st.staleness) throw std::logic_error("checkpoint with an asynchronous update under way");
      if (!st.notes.empty()) throw std::logic_error("checkpoint with an algorithm's column noted in an open round");
    }
    for (const auto& c : kHospitalCounters) out.put(key + ".stats." + c.name, c.save(state.stats));
    for (const auto& c : kHospitalFigures) out.put(key + ".stats." + c.name, c.save(state.stats));
    for (const auto& [name, member] : kRoundCounters) out.put(key + "." + name, state.*member);
    out.put(key + ".faults.updates_lost", state.faults.updates_lost);
    out.put(key + ".faults.bytes_wasted", state.faults.bytes_wasted);
    out.put(key + ".faults.time_lost_s", state.faults.sim_time_lost_s);
  }
  out.put("ledger.open_rounds", open);
  out.put("ledger.crashed", crashed_);
  if (best_watched_) out.put("ledger.best_watched", *best_watched_);
}

void RoundLedger::restore(const StateReader& in) {
  load_summary(in, "ledger.summary", summary_);
  crashed_ = in.integers("ledger.crashed");
  best_watched_.reset();
  if (in.has("ledger.best_watched")) best_watched_ = in.real("ledger.best_watched");
  rounds_.clear();
  for (int64_t r : in.integers("ledger.open_rounds")) {
    const std::string key = "ledger.round." + std::to_string(r);
    RoundState& state = round(int(r));
    const auto start = in.reals(key + ".start"), end = in.reals(key + ".end"), flops = in.reals(key + ".flops");
    const auto bytes = in.integers(key + ".bytes"), round_of = in.integers(key + ".round");
    const auto host = lines(in.text(key + ".host")), kind = lines(in.text(key + ".kind")),
               peer = lines(in.text(key + ".peer"));
    // Checkpoints written before output.critical_path kept no alone times.
    const auto alone = in.has(key + ".alone") ? in.reals(key + ".alone") : std::vector<double>(start.size(), -1);
    for (size_t i = 0; i < start.size(); ++i)
      state.activities.push_back({start[i], end[i], host.at(i), kind.at(i), peer.at(i), bytes.at(i), flops.at(i),
                                  int(round_of.at(i)), alone.at(i)});
    for (const auto& c : kHospitalCounters) c.load(in.integers(key + ".stats." + c.name), state.stats);
    for (const auto& c : kHospitalFigures)  // (checkpoints before output.critical_path kept no last_end_s)
      if (in.has(key + ".stats." + c.name)) c.load(in.reals(key + ".stats." + c.name), state.stats);
    const auto losses = lines(in.text(key + ".stats.loss"));
    for (size_t h = 0; h < state.stats.size(); ++h) state.stats[h].loss = losses.at(h);
    for (const auto& [name, member] : kRoundCounters) state.*member = in.integer(key + "." + name);
    state.faults.updates_lost = in.integer(key + ".faults.updates_lost");
    state.faults.bytes_wasted = in.integer(key + ".faults.bytes_wasted");
    state.faults.sim_time_lost_s = in.real(key + ".faults.time_lost_s");
  }
}

RunSummary RoundLedger::finish(double now, double energy_j, std::vector<std::pair<std::string, std::string>> versions,
                               std::optional<Arithmetic> arithmetic) {
  auto& s = summary_;
  s.versions = std::move(versions);
  s.arithmetic = std::move(arithmetic);
  // After a stop condition cut the run (time budget, target, or pipelined hospitals stopped
  // mid-round), the figures stay those of the last round reported; work under way for later
  // rounds is dropped with them.
  if (!over_budget_ && !stopping_) {
    for (auto& [round, state] : rounds_) emit(state.activities);
    s.sim_time_s = now;
    s.energy_j = energy_j;
  }
  rounds_.clear();
  s.network = scenario_.timing.network;
  if (s.stop_reason.empty()) s.stop_reason = "algorithm_finished";
  for (auto* o : observers_) o->on_finish(s);
  return s;
}

}  // namespace fedgrid

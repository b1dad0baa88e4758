#include "sim/engine/faults.hpp"

#include <fnmatch.h>
#include <libfccp/csv.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "data/rng.hpp"
#include "sim/core/csv_number.hpp"
#include "sim/core/input_error.hpp"
#include "sim/core/seed_streams.hpp"

namespace fedgrid {
namespace {

[[noreturn]] void bad(const std::string& file, int line, const std::string& column, const std::string& message) {
  throw InputError({{file, line, column, message}});
}

// One row of a fault trace: its line and its cells by column name (empty: not given).
struct TraceRow {
  int line = 0;
  std::vector<std::string> cells;
};

// Reads `file` (scenario key `key`) with `columns`, the first `required` of them required.
std::vector<TraceRow> read_trace(const std::string& file, const std::string& key, const std::vector<std::string>& columns,
                                 size_t required) {
  if (std::error_code ec; !std::filesystem::is_regular_file(file, ec)) bad(file, 0, key, "trace file not found");
  std::vector<TraceRow> rows;
  try {
    io::CSVReader<4, io::trim_chars<' ', '\t'>, io::double_quote_escape<',', '"'>, io::throw_on_overflow,
                  io::single_line_comment<'#'>>
        in(file);
    std::vector<std::string> names = columns;  // padded to the reader's 4 with names no file uses
    for (size_t i = columns.size(); i < 4; ++i) names.push_back("(unused " + std::to_string(i) + ")");
    in.read_header(io::ignore_missing_column | io::ignore_extra_column, names[0], names[1], names[2], names[3]);
    for (size_t i = 0; i < required; ++i)
      if (!in.has_column(columns[i])) bad(file, 1, columns[i], "required column is missing");
    std::string c[4];
    while (in.read_row(c[0], c[1], c[2], c[3])) {
      TraceRow row{int(in.get_file_line()), {}};
      for (size_t i = 0; i < columns.size(); ++i) {
        if (i < required && c[i].empty()) bad(file, row.line, columns[i], "empty cell");
        row.cells.push_back(c[i]);
      }
      rows.push_back(std::move(row));
    }
  } catch (const io::error::base& e) {
    bad(file, 0, key, e.what());
  }
  return rows;
}

// Hospitals whose name matches `pattern` (a name or a glob such as weak-*), by id.
std::vector<int> matching(const std::vector<std::string>& names, const std::string& pattern, const std::string& file,
                          int line) {
  std::vector<int> out;
  for (size_t i = 0; i < names.size(); ++i)
    if (fnmatch(pattern.c_str(), names[i].c_str(), 0) == 0) out.push_back(int(i));
  if (out.empty()) bad(file, line, "hospital", "no hospital is named '" + pattern + "' (names as in hospitals.csv; glob patterns allowed)");
  return out;
}

}  // namespace

const char* status_name(Loss loss) {
  switch (loss) {
    case Loss::None: return "";
    case Loss::Offline: return "offline";
    case Loss::Crashed: return "crashed";
    case Loss::Late: return "late";
  }
  return "";
}

FaultPlan::FaultPlan(const Scenario& scenario, const std::vector<std::string>& names)
    : scenario_(scenario),
      online_(names.size()),
      down_(names.size()),
      generated_until_(names.size(), 0),
      crashes_drawn_(names.size(), 0),
      links_(names.size()) {
  const auto& f = scenario.faults;
  if (!f.availability_trace.empty()) {
    const std::string& file = f.availability_trace;
    for (const auto& row : read_trace(file, "faults.availability_trace", {"hospital", "online_from_s", "online_until_s"}, 3)) {
      const double from = csv_number(row.cells[1], file, row.line, "online_from_s", false);
      const double until = csv_number(row.cells[2], file, row.line, "online_until_s", false);
      if (until <= from) bad(file, row.line, "online_until_s", "must be after online_from_s");
      for (int h : matching(names, row.cells[0], file, row.line)) {
        auto& intervals = online_[size_t(h)];
        if (!intervals) intervals.emplace();
        intervals->push_back({from, until});
      }
    }
    for (auto& intervals : online_)
      if (intervals) std::sort(intervals->begin(), intervals->end(), [](auto& a, auto& b) { return a.from < b.from; });
  }
  if (!f.crash_trace.empty()) {
    const std::string& file = f.crash_trace;
    for (const auto& row : read_trace(file, "faults.crash_trace", {"hospital", "crash_at_s", "recover_at_s"}, 2)) {
      const double at = csv_number(row.cells[1], file, row.line, "crash_at_s", false);
      const double back = row.cells[2].empty() ? kNever : csv_number(row.cells[2], file, row.line, "recover_at_s", false);
      if (back < at) bad(file, row.line, "recover_at_s", "must not be before crash_at_s");
      for (int h : matching(names, row.cells[0], file, row.line)) down_[size_t(h)].push_back({at, back});
    }
  }
  for (auto& d : down_) std::sort(d.begin(), d.end(), [](auto& a, auto& b) { return a.from < b.from; });
  if (!f.link_trace.empty()) {
    const std::string& file = f.link_trace;
    for (const auto& row :
         read_trace(file, "faults.link_trace", {"hospital", "time_s", "bandwidth_factor", "latency_s"}, 3)) {
      LinkStep step{csv_number(row.cells[1], file, row.line, "time_s", false),
                    csv_number(row.cells[2], file, row.line, "bandwidth_factor", false), std::nullopt};
      if (step.bandwidth_factor <= 0 || step.bandwidth_factor > 1)
        bad(file, row.line, "bandwidth_factor", "must be in (0, 1] (a share of the link's bandwidth), got " + row.cells[2]);
      if (!row.cells[3].empty()) step.latency_s = csv_number(row.cells[3], file, row.line, "latency_s", false);
      for (int h : matching(names, row.cells[0], file, row.line)) {
        auto& steps = links_[size_t(h)];
        for (const auto& s : steps)
          if (s.time_s == step.time_s) bad(file, row.line, "time_s", "two steps at the same instant for " + names[size_t(h)]);
        steps.push_back(step);
      }
    }
    for (auto& steps : links_) std::sort(steps.begin(), steps.end(), [](auto& a, auto& b) { return a.time_s < b.time_s; });
  }
}

const std::vector<FaultPlan::Interval>& FaultPlan::downtime(int h, double until) {
  auto& d = down_[size_t(h)];
  const double rate_per_s = scenario_.faults.crash_rate_per_hour / 3600.0;
  if (rate_per_s <= 0) return d;
  double& generated = generated_until_[size_t(h)];
  uint64_t& k = crashes_drawn_[size_t(h)];
  // Draw crashes until one starts after `until`: gaps from the end of the previous downtime.
  while (generated <= until) {
    const double u = Rng(mix_seed(scenario_.seed, seed_streams::kCrash, uint64_t(h + 1), ++k)).uniform();
    const double at = generated + -std::log1p(-u) / rate_per_s;
    const double back = at + scenario_.faults.recovery_s;
    d.insert(std::upper_bound(d.begin(), d.end(), at, [](double t, const Interval& i) { return t < i.from; }),
             Interval{at, back});
    generated = back;
  }
  return d;
}

bool FaultPlan::in_trace(int h, double t, double* until) const {
  const auto& intervals = online_[size_t(h)];
  if (!intervals) {
    if (until) *until = kNever;
    return true;
  }
  for (const auto& i : *intervals)
    if (i.from <= t && t < i.until) {
      if (until) *until = i.until;
      return true;
    }
  return false;
}

Loss FaultPlan::unavailable(int h, int round, double t) {
  const auto& f = scenario_.faults;
  if (f.offline_probability > 0 &&
      Rng(mix_seed(scenario_.seed, seed_streams::kOffline, uint64_t(h + 1), uint64_t(round))).uniform() <
          f.offline_probability)
    return Loss::Offline;
  if (!in_trace(h, t, nullptr)) return Loss::Offline;
  for (const auto& i : downtime(h, t))
    if (i.from <= t && t < i.until) return Loss::Offline;
  return Loss::None;
}

FaultPlan::Cut FaultPlan::next_cut(int h, double t) {
  Cut cut;
  double until = kNever;
  if (in_trace(h, t, &until) && until < kNever) cut = {until, Loss::Offline};
  for (const auto& i : downtime(h, t))
    if (i.from > t) {
      if (i.from < cut.at) cut = {i.from, Loss::Crashed};
      break;
    }
  return cut;
}

FaultPlan::Downtime FaultPlan::next_downtime(int h, double t) {
  for (const auto& i : downtime(h, t))
    if (i.from >= t && i.until > i.from) return {i.from, i.until};
  // Rate crashes are drawn up to just past t: draw on until one begins later (with no
  // recovery time they take the host down for no time at all).
  if (scenario_.faults.crash_rate_per_hour > 0 && scenario_.faults.recovery_s > 0)
    for (double until = t + 3600; until < 1e12; until *= 2)
      for (const auto& i : downtime(h, until))
        if (i.from >= t && i.until > i.from) return {i.from, i.until};
  return {};
}

double FaultPlan::available_from(int h, double t) {
  for (int guard = 0; guard < 1'000'000 && t < kNever; ++guard) {
    bool moved = false;
    for (const auto& i : downtime(h, t))
      if (i.from <= t && t < i.until) t = i.until, moved = true;
    if (!in_trace(h, t, nullptr)) {
      double next = kNever;
      for (const auto& i : *online_[size_t(h)])
        if (i.from > t) {
          next = i.from;
          break;
        }
      t = next, moved = true;
    }
    if (!moved) return t;
  }
  return t;
}

}  // namespace fedgrid

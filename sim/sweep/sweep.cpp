#include "sim/sweep/sweep.hpp"

#include <fmt/format.h>

#include <chrono>
#include <deque>
#include <filesystem>
#include <thread>
#include <utility>
#include <vector>

#include "sim/core/input_error.hpp"
#include "sim/sweep/sweep_table.hpp"

namespace fedgrid {
namespace {

// The cells this rank runs as child processes, at most `jobs` at once.
class LocalSlots {
 public:
  LocalSlots(const SweepPlan& plan, const std::vector<SweepCell>& cells, const SweepOptions& options)
      : plan_(plan), cells_(cells), options_(options) {}

  bool free() const { return running_.size() < size_t(options_.jobs); }
  bool busy() const { return !running_.empty(); }
  void start(size_t cell) { running_.emplace_back(start_cell(plan_, cells_.at(cell), options_.executable), cell); }

  // The outcome of a cell that ended; with `wait`, waits for one (the caller knows one runs).
  std::optional<CellOutcome> reap(bool wait) {
    while (true) {
      for (auto it = running_.begin(); it != running_.end(); ++it) {
        const std::optional<int> status = it->first.poll();
        if (!status) continue;
        const size_t cell = it->second;
        running_.erase(it);
        return finish_cell(plan_, cells_[cell], *status);
      }
      if (!wait || running_.empty()) return std::nullopt;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

 private:
  const SweepPlan& plan_;
  const std::vector<SweepCell>& cells_;
  const SweepOptions& options_;
  std::vector<std::pair<CellProcess, size_t>> running_;  // process, cell; in the order started
};

// Rank 0: hands cells to its own slots and to the other ranks' slots as they ask, collects
// every outcome and merges them.
SweepReport coordinate(const SweepPlan& plan, const std::vector<SweepCell>& cells, const SweepOptions& options,
                       SweepRanks& ranks) {
  SweepReport report;
  report.cells = cells.size();
  std::vector<CellOutcome> outcomes;
  auto record = [&](CellOutcome o, int rank) {
    const auto& c = cells[o.cell];
    const std::string where = ranks.size() > 1 ? fmt::format(" (rank {})", rank) : "";
    if (o.reused) ++report.reused;
    else ++report.ran;
    if (!o.ok) ++report.failed;
    if (!o.ok && o.reused) ++report.failed_earlier;
    const std::string what = o.reused ? (o.ok ? "finished earlier, kept" : "FAILED earlier, kept: " + o.error)
                                      : (o.ok ? "ok" : "FAILED: " + o.error);
    options.log(fmt::format("[{}/{}] {}: {}{}", outcomes.size() + 1, cells.size(), c.dir, what, where));
    outcomes.push_back(std::move(o));
  };

  std::deque<size_t> queue;
  for (const auto& c : cells) {
    if (auto earlier = earlier_outcome(plan, c, options.retry_failed)) record(*earlier, 0);
    else queue.push_back(c.index);
  }

  LocalSlots local(plan, cells, options);
  const size_t remote_slots = size_t(ranks.size() - 1) * size_t(options.jobs);
  size_t remote_running = 0, remote_stopped = 0;
  while (true) {
    bool progressed = false;
    for (; local.free() && !queue.empty(); queue.pop_front(), progressed = true) local.start(queue.front());
    while (auto request = ranks.next_request()) {
      progressed = true;
      if (request->done) {
        record(*request->done, request->from);
        --remote_running;
      }
      if (queue.empty()) {
        ranks.reply(request->from, std::nullopt);
        ++remote_stopped;
      } else {
        ranks.reply(request->from, queue.front());
        queue.pop_front();
        ++remote_running;
      }
    }
    while (auto done = local.reap(false)) {
      record(*done, 0);
      progressed = true;
    }
    if (queue.empty() && !local.busy() && remote_running == 0 && remote_stopped == remote_slots) break;
    if (!progressed) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  write_sweep_outputs(plan, outcomes);
  return report;
}

// Other ranks: each slot asks rank 0 for a cell, runs it, and reports it with its next request.
void serve(const SweepPlan& plan, const std::vector<SweepCell>& cells, const SweepOptions& options,
           SweepRanks& ranks) {
  LocalSlots local(plan, cells, options);
  std::deque<std::optional<CellOutcome>> reports(size_t(options.jobs));  // first requests carry nothing
  while (true) {
    for (; !reports.empty(); reports.pop_front())
      if (auto cell = ranks.ask(reports.front())) local.start(*cell);
    if (!local.busy()) return;
    reports.push_back(local.reap(true));
  }
}

}  // namespace

SweepReport run_sweep(const SweepPlan& plan, const SweepOptions& options, SweepRanks& ranks) {
  std::filesystem::create_directories(plan.out);
  const auto cells = plan.cells();
  if (ranks.rank() == 0) return coordinate(plan, cells, options, ranks);
  serve(plan, cells, options, ranks);
  return {};
}

}  // namespace fedgrid

namespace fedgrid {

int sweep_command(const std::string& file, const SweepRequest& request, const std::string& fedgrid_executable,
                  SweepRanks& ranks) {
  SweepPlan plan;
  try {
    plan = load_sweep(file, request.out, request.overrides);  // every rank reads the same file, so all fail alike
  } catch (const InputError& e) {
    if (ranks.rank() == 0)
      for (const auto& p : e.problems()) fmt::print(stderr, "fedgrid: error: {}\n", p.to_string());
    return 2;
  }
  SweepOptions options;
  options.jobs = request.jobs;
  options.retry_failed = request.retry_failed;
  options.executable = fedgrid_executable;
  options.log = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
  SweepReport r;
  try {
    r = run_sweep(plan, options, ranks);
  } catch (const std::exception& e) {
    // Other ranks may be waiting on this one: end them all rather than hang.
    fmt::print(stderr, "fedgrid: internal error: {}\n", e.what());
    ranks.abort(1);
  }
  if (ranks.rank() != 0) return 0;
  // Cells kept from an earlier invocation count as "finished earlier" when ok; kept failures
  // are named apart, with how to run them again.
  const std::string kept_failures =
      r.failed_earlier ? fmt::format(" ({} failed earlier and kept: --retry-failed runs them again)", r.failed_earlier) : "";
  fmt::print("{}: {} cells: {} run, {} finished earlier, {} failed{} -> {}/sweep.csv\n", plan.name, r.cells, r.ran,
             r.reused - r.failed_earlier, r.failed, kept_failures, plan.out);
  return r.failed > 0 ? 1 : 0;
}

}  // namespace fedgrid

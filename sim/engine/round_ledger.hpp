#pragma once
// The round ledger: what each round has done (activities, bytes, messages, every hospital's
// figures), kept per round until the round is reported, then passed to the observers with the
// round's scores; the run's totals (summary.json) and the stop conditions that follow from
// reported rounds (target accuracy, time budget, early stopping's patience).
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/evaluation.hpp"
#include "sim/engine/metric_table.hpp"
#include "sim/engine/observer.hpp"
#include "sim/engine/round_state.hpp"
#include "sim/scenario/scenario.hpp"

namespace fedgrid {

class StateWriter;
class StateReader;

class RoundLedger {
 public:
  // `on_stop` runs once a stop condition is met while rounds are under way (pipelined
  // hospitals end, waits for peer models return empty).
  // `metrics`: the run's table (built once, handed to the observers too).
  // `server`: the server host's name, where a round's critical path starts (output.critical_path).
  RoundLedger(const Scenario& scenario, std::string server, std::vector<LedgerRow> hospitals, std::vector<std::string> tiers,
              std::vector<Observer*> observers, std::function<void()> on_stop,
              std::shared_ptr<const RunMetrics> metrics);
  // Notes `value` in `column`, one of the algorithm's own columns (RunMetrics::algorithm_columns),
  // of round r's row (hospital < 0) or of hospital's row in round r; written in the columns'
  // order, empty where none was noted. Throws std::logic_error for a column not declared.
  void note(int r, int hospital, const std::string& column, std::string value);

  // Round r's state, opened on first use (several are open while a pipelined schedule runs).
  RoundState& round(int r);
  // A transfer of `bytes` standing for `k` hospitals' transfers (cohorts): counted toward the
  // round's bytes up (to the server), down (from it) or peer to peer, and each hospital end's
  // communication figures (-1: the server).
  void count_transfer(int round, int from, int to, int64_t bytes, int64_t k, double seconds);

  // Faults: hospital `h`'s update of `round` is lost (`why`: offline, crashed, late) after it
  // moved `bytes` and spent `seconds`; waste() counts work lost with no update of its own (a
  // peer-to-peer post cut short).
  void note_loss(int round, int h, const std::string& why, int64_t bytes, double seconds);
  void waste(int round, int64_t bytes, double seconds);

  // True once the run should stop before `round` (rounds, target accuracy, patience, time budget).
  bool done(int round, double now);
  bool stopping() const { return stopping_; }
  void stop();  // a stop condition was met
  // Reports the round: its activities, its row of rounds.csv and hospitals.csv (every metric
  // of the run's table computed from `scores` and what the round did), the run's summary
  // figures; a round that ended past the time budget never happened. Under early stopping
  // (stop.patience) the summary's final figures are those of the round kept so far.
  void report(int round, const Scores& scores, double now, double energy_j, int num_classes);
  // The run's summary, after the algorithm returned; activities of unreported rounds go out
  // unless a stop condition cut the run.
  RunSummary finish(double now, double energy_j, std::vector<std::pair<std::string, std::string>> versions,
                    std::optional<Arithmetic> arithmetic);

  // Checkpoints: the run's totals and what rounds not yet reported have done (UniFed scores
  // its mixed model after reporting the round: that work goes out with the next round).
  // Only between rounds, with no stop under way.
  bool can_checkpoint() const { return !stopping_ && summary_.stop_reason.empty(); }
  bool untouched() const { return rounds_.empty() && summary_.rounds == 0; }
  void save(StateWriter& out) const;
  void restore(const StateReader& in);

 private:
  void emit(std::vector<Activity>& activities);
  // Hands the observers `round`'s activities, after any of earlier rounds never reported (those
  // before the first round), and adds the hospitals a crash cut this round to crashed_.
  void close_activities(int round, RoundState& state);
  // Early stopping: whether scored round `round` improves the watched validation figure
  // (stop.monitor) by more than stop.min_delta, and so becomes the kept round; a round that
  // does not, stop.patience rounds or more after the kept one, stops the run.
  bool keeps(int round, const Scores& scores);

  const Scenario& scenario_;
  std::string server_;
  std::vector<LedgerRow> hospitals_;
  std::vector<std::string> tiers_;
  std::vector<Observer*> observers_;
  std::function<void()> on_stop_;
  std::map<int, RoundState> rounds_;
  std::shared_ptr<const RunMetrics> metrics_;  // the declared metrics enabled, then the algorithm's columns
  RunSummary summary_;
  std::vector<int64_t> crashed_;  // hospitals that lost a job to a crash, sorted (hospitals_lost)
  std::optional<double> best_watched_;  // stop.monitor's value in the kept round (summary_.kept_round)
  bool target_reached_ = false, over_budget_ = false, stopping_ = false, patience_spent_ = false;
};

}  // namespace fedgrid

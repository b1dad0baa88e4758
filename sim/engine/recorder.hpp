#pragma once
// Writes the output files of DESIGN.md's contract, row by row as the run goes, flushed, so
// an interrupted run keeps what it had: rounds.csv, hospitals.csv, events.csv, trace.json
// (Chrome trace format, one track per host) and, at the end, summary.json.
#include <array>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "sim/engine/observer.hpp"

namespace fedgrid {

class Recorder : public Observer {
 public:
  // `resume_sizes`: a resumed run's files, cut back to these sizes (rounds, hospitals,
  // events, trace) and continued; empty: fresh files.
  Recorder(const std::string& dir, bool trace, const std::vector<int64_t>& resume_sizes = {});
  // The bytes written so far to rounds.csv, hospitals.csv, events.csv, trace.json.
  std::vector<int64_t> sizes();
  // A fresh run refused at set-up: closes and removes the files it opened, so that the folder
  // does not look like an earlier run's (claim_output_folder). A resumed run keeps its files.
  void discard();
  ~Recorder() override;
  void on_start(const RunInfo& info) override;
  void on_activity(const Activity& a) override;
  void on_round(const RoundReport& r) override;
  void on_finish(const RunSummary& s) override;
  double output_seconds() const { return output_s_; }

 private:
  std::string dir_;
  bool trace_;
  std::ofstream rounds_, hospitals_, events_, trace_out_;
  std::array<std::ofstream*, 4> streams();  // in kRecordedFiles' order (recorder.cpp)
  std::map<std::string, int> track_;  // host -> trace thread id
  bool first_trace_event_ = true;
  bool resumed_ = false;
  double output_s_ = 0;
};

// summary.json's order, the output contract's: the run's facts (summary_run_facts) and the
// metric table's summary keys (an object's name for "a.b" keys); a summary key not named here
// follows the named ones, in declaration order.
const std::vector<std::string>& summary_layout();
const std::vector<std::string>& summary_run_facts();

// perf.json: wall-clock and memory figures (not deterministic, kept apart on purpose).
void write_perf_json(const std::string& dir, const std::map<std::string, double>& figures);
// Peak resident set size of this process, MiB.
double peak_rss_mib();

}  // namespace fedgrid

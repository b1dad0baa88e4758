#pragma once
// What a round has done, as the ledger keeps it (round_ledger.hpp) and the metric table reads
// it (metric_table.cpp): apart from both, so that neither includes the other.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/activity.hpp"

namespace fedgrid {

// One hospital's figures in one round (a row of hospitals.csv before scoring).
struct HospitalStats {
  int64_t samples = 0;
  int epochs = 0;
  std::optional<double> train_loss;
  double compute_s = 0, comm_s = 0;
  double last_end_s = -1;  // when its last activity of the round ended (-1: none), for idle_s
  int64_t bytes_up = 0, bytes_down = 0;
  bool took_part = false;
  std::optional<int> staleness;  // an asynchronous update applied this round (the largest)
  std::string loss;              // why its update was lost (offline, crashed, late), or empty
  std::map<std::string, std::string> notes;  // the algorithm's own columns (Federation::note)
};

// What faults (faults.*) cost a round: updates that never reached it (offline, crashed, late),
// bytes moved for lost updates (partial transfers included), and the hospital-seconds of compute
// and transfer they took (summary.json's faults.*, metric_table.cpp).
struct FaultTotals {
  int64_t updates_lost = 0, bytes_wasted = 0;
  double sim_time_lost_s = 0;
};

// What a round has done so far: passed on when the round is reported, dropped when it ended
// after stop.sim_time_budget_s (then the run's figures stop at the last round that fit).
struct RoundState {
  std::vector<HospitalStats> stats;  // by hospital id
  std::vector<Activity> activities;
  int64_t bytes_up = 0, bytes_down = 0, bytes_peer = 0, messages = 0;
  // compression.*: the transfers that went through a codec, as they would have crossed
  // uncompressed (payload_bytes) and as they did (encoded, headers included); counted when
  // encoded, whether or not they arrived (sim/engine/compressed_links.hpp).
  int64_t codec_raw_bytes = 0, codec_encoded_bytes = 0;
  FaultTotals faults;
  std::map<std::string, std::string> notes;  // the algorithm's own columns (Federation::note)
};

// A hospital as the ledger names it in hospitals.csv.
struct LedgerRow {
  int id = 0;
  std::string name, tier;
};

}  // namespace fedgrid

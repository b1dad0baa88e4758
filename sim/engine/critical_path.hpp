#pragma once
// What ended a round (output.critical_path; rounds.csv's critical_* columns): the chain of
// activities walked back from the moment the round was reported to the moment the previous round
// was (the run's start for the first). First the activity that ended last before the report,
// wherever it ran; then, at that activity's node, the one that ended last by its start among
// those that end there (its own compute or server work, or a transfer it received), and so on:
// across a transfer the chain moves to its sender. Time between one link of the chain and the next is idle. So the split always sums
// to the round's duration. A round here is the span between two reports: for asynchronous
// servers one applied update (or buffer), for peer-to-peer schedules one reported step, and an
// activity begun before the span counts from its start.
#include <string>
#include <vector>

#include "sim/engine/activity.hpp"

namespace fedgrid {

struct CriticalPath {
  std::string host;  // the first hospital the chain reaches walking back ("server": none)
  double downlink_s = 0, compute_s = 0, uplink_s = 0, peer_s = 0, server_s = 0, idle_s = 0;
  // Of the chain's transfer time, what sharing links with other flows added to the time each
  // transfer would have taken alone on its route; negative when the network model gives no
  // alone time (timing.network: ns3).
  double contention_s = 0;
};

// The chain behind the report at `end_s` of a round that began at `start_s`, from `activities`
// (the round's, as the ledger keeps them); `server` is the server host's name.
CriticalPath critical_path(const std::vector<Activity>& activities, double start_s, double end_s,
                           const std::string& server);

}  // namespace fedgrid

#pragma once
// One simulated activity (a computation, a transfer) as the engine's parts record it and the
// observers receive it (observer.hpp): the vocabulary at the bottom of the engine.
#include <cstdint>
#include <functional>
#include <string>

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
  // A transfer's duration had it been alone on its route, for output.critical_path's contention
  // (< 0: not computed, or no closed form under the network model: timing.network ns3).
  double alone_s = -1;
};

class Node;
// How an engine part (transport, compute charge) records an activity that ran between `from`
// and `to` (null: none) with the federation.
using RecordActivity = std::function<void(const Activity&, const Node* from, const Node* to)>;

}  // namespace fedgrid

#include "sim/engine/critical_path.hpp"

#include <algorithm>

namespace fedgrid {
namespace {

bool is_send(const Activity& a) { return a.kind == "send"; }

// Whether `a` ends at `node` (empty: anywhere): its own work there, or a transfer it received.
bool ends_at(const Activity& a, const std::string& node) {
  return node.empty() || (is_send(a) ? a.peer == node : a.host == node);
}

}  // namespace

CriticalPath critical_path(const std::vector<Activity>& activities, double start_s, double end_s,
                           const std::string& server) {
  CriticalPath path;
  std::vector<bool> used(activities.size(), false);
  std::string node;  // the report follows whatever ended last, wherever it ran
  double cursor = end_s;
  bool alone_known = true;
  while (cursor > start_s) {
    // The activity at `node` that ended last by the cursor (a tie: the later start, the one that
    // began after the other ended).
    const Activity* best = nullptr;
    size_t best_i = 0;
    for (size_t i = 0; i < activities.size(); ++i) {
      const Activity& a = activities[i];
      if (used[i] || a.end_s > cursor || a.end_s <= start_s || !ends_at(a, node)) continue;
      if (!best || a.end_s > best->end_s || (a.end_s == best->end_s && a.start_s > best->start_s)) best = &a, best_i = i;
    }
    if (!best) break;
    used[best_i] = true;
    path.idle_s += cursor - best->end_s;
    const double from = std::max(best->start_s, start_s), seconds = best->end_s - from;
    if (is_send(*best)) {
      double& phase = best->host == server ? path.downlink_s : best->peer == server ? path.uplink_s : path.peer_s;
      phase += seconds;
      if (best->alone_s < 0) {
        alone_known = false;
      } else {
        // The part of the transfer inside the round, in proportion.
        const double whole = best->end_s - best->start_s;
        if (whole > 0) path.contention_s += std::max(0.0, whole - best->alone_s) * (seconds / whole);
      }
      node = best->host;
    } else {
      (best->host == server ? path.server_s : path.compute_s) += seconds;
      node = best->host;
    }
    if (path.host.empty() && node != server) path.host = node;  // (a sender, or where it computed)
    cursor = from;
  }
  path.idle_s += cursor - start_s;
  if (path.host.empty()) path.host = server;
  if (!alone_known) path.contention_s = -1;
  return path;
}

}  // namespace fedgrid

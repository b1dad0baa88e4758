#include "bench/emulator/topology.hpp"

namespace fedgrid::emulator {
namespace {

int uplink(int host) { return 2 * host; }
int downlink(int host) { return 2 * host + 1; }

}  // namespace

Topology::Topology(const Options& o)
    : has_server_(o.schedule != "fedcross"), backbone_bps_(o.backbone_bps), backbone_latency_s_(o.backbone_latency_s) {
  HostSpec server = o.server;
  if (!has_server_) server = {"server", 1, 0, 1e9, 1e9, 0};  // no process, no flow: placeholders
  hosts_.push_back(server);
  hosts_.insert(hosts_.end(), o.hospitals.begin(), o.hospitals.end());
}

std::vector<double> Topology::link_bandwidths() const {
  std::vector<double> bps;
  for (const auto& h : hosts_) bps.insert(bps.end(), {h.uplink_bps, h.downlink_bps});
  bps.push_back(backbone_bps_);  // link 2 * hosts()
  return bps;
}

Route Topology::route(int from, int to) const {
  return {{uplink(from), 2 * hosts(), downlink(to)},
          host(from).latency_s + backbone_latency_s_ + host(to).latency_s};
}

}  // namespace fedgrid::emulator

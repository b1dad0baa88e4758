#pragma once
// The emulated platform, shaped as fedgrid builds it (platforms/topology.cpp): every host has
// an uplink and a downlink, each with the host's latency, into one shared backbone; a
// transfer from A to B crosses A's uplink, the backbone and B's downlink, and pays both access
// latencies plus the backbone's.
#include <string>
#include <vector>

#include "bench/emulator/options.hpp"
#include "bench/emulator/pacer.hpp"

namespace fedgrid::emulator {

// Host ids: 0 is the server, 1..N the hospitals in command-line order.
inline int hospital_host(int index) { return index + 1; }

class Topology {
 public:
  explicit Topology(const Options& o);
  int hosts() const { return int(hosts_.size()); }
  const HostSpec& host(int id) const { return hosts_[size_t(id)]; }
  bool runs(int id) const { return id > 0 || has_server_; }  // fedcross starts no server
  std::vector<double> link_bandwidths() const;  // index = link id, for LinkTable::create
  Route route(int from, int to) const;

 private:
  std::vector<HostSpec> hosts_;
  bool has_server_;
  double backbone_bps_, backbone_latency_s_;
};

}  // namespace fedgrid::emulator

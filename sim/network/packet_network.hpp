#pragma once
// timing.network: ns3. Every transfer is a TCP connection simulated packet by packet by ns-3
// (libns3 3.37, driven directly: SimGrid 3.32's own ns-3 binding cannot carry fedgrid's star,
// docs/guide/time-model.md, "Packet level"), on the clock SimGrid's actors live by.
//
// The network mirrors the generated star: every host (server and hospitals) hangs off one
// router by a full-duplex point-to-point link whose two directions run at the host's uplink and
// downlink rates, with the host's latency plus half the backbone's as its propagation delay, so
// that a route's latency is the star's (host + backbone + host). The backbone is a latency, not
// a shared bottleneck (its bandwidth is checked at set-up never to bind).
//
// One daemon actor keeps ns-3 in step with SimGrid: it runs ns-3's events only up to the
// SimGrid clock and sleeps until ns-3's next event, so a transfer started by any actor enters
// ns-3 at exactly the simulated instant it was asked for, and ends (its last byte read by the
// receiving application) at exactly the instant ns-3 delivers it.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/network/tcp_settings.hpp"

namespace simgrid::s4u {
class Host;
}

namespace fedgrid::network {

// A host's link to the router: uplink (host -> router) and downlink (router -> host) in bit/s,
// one-way propagation delay in seconds.
struct Attachment {
  double uplink_bps = 0, downlink_bps = 0, delay_s = 0;
};

// The generated star's hosts (platforms::MachineSpec: uplink_bps, downlink_bps, latency_s) as
// attachments: the server (host 0), then hospital i (host 1 + i), each with its own latency plus
// half the backbone's, so that a route's latency is the star's.
template <class Spec>
std::vector<Attachment> star_attachments(const Spec& server, const std::vector<Spec>& hospitals, double backbone_latency_s) {
  auto attach = [&](const Spec& m) { return Attachment{m.uplink_bps, m.downlink_bps, m.latency_s + backbone_latency_s / 2}; };
  std::vector<Attachment> hosts{attach(server)};
  for (const auto& h : hospitals) hosts.push_back(attach(h));
  return hosts;
}

// Figures of one run, for perf.json and the benchmarks.
struct PacketStats {
  uint64_t events = 0;           // ns-3 events processed
  uint64_t transfers = 0;
  uint64_t packets_dropped = 0;  // at full link queues
  uint64_t wakeups = 0;          // times the daemon actor woke
};

class PacketNetwork {
 public:
  // Builds the network in ns-3 (one per process: ns-3's simulator is global) and starts the
  // daemon actor on `daemon_host`.
  PacketNetwork(const std::vector<Attachment>& hosts, const TcpSettings& tcp, simgrid::s4u::Host* daemon_host);
  ~PacketNetwork();
  PacketNetwork(const PacketNetwork&) = delete;
  PacketNetwork& operator=(const PacketNetwork&) = delete;

  // Blocks the calling actor until `bytes` sent from host `from` to host `to` (indices into the
  // attachments) over a new TCP connection have all been read by the receiving application.
  void transfer(int from, int to, int64_t bytes);

  PacketStats stats() const;

  // A host opens at most this many connections at once (ns-3's ephemeral ports, less a margin
  // for those still in TIME_WAIT).
  static constexpr size_t kMaxHospitals = 16000;

  // Each link's queue in bytes under these settings: rate x queue_s, at least 4 segments.
  static uint32_t queue_bytes(double rate_bps, const TcpSettings& tcp);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fedgrid::network

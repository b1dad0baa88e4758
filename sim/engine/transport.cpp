#include "sim/engine/transport.hpp"
#include "sim/engine/sim_clock.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/engine/actor_tags.hpp"
#include "sim/engine/fault_guard.hpp"
#include "sim/engine/node.hpp"
#include "sim/engine/star_fluid.hpp"
#include "sim/engine/world.hpp"
#include "sim/network/packet_network.hpp"

namespace fedgrid {
namespace sg4 = simgrid::s4u;

namespace {


class PlainTransport : public Transport {
 public:
  PlainTransport(const ActorTags& tags, RecordActivity record) : tags_(tags), record_(std::move(record)) {}
  void send(Node& from, Node& to, int64_t bytes) override {
    const double start = sim_now();
    sg4::Comm::sendto(from.host(), to.host(), uint64_t(bytes));
    sent(from, to, start, bytes);
  }

 protected:
  void sent(Node& from, Node& to, double start, int64_t bytes) {
    record_({start, sim_now(), from.name(), "send", to.name(), bytes, 0.0, tags_.round()}, &from, &to);
  }

 private:
  const ActorTags& tags_;
  RecordActivity record_;
};

// A guarded hospital's transfer ends early when its work is cut: the bytes that moved are
// counted, and the hospital's work is lost.
class GuardedTransport : public PlainTransport {
 public:
  GuardedTransport(FaultGuards& guards, const ActorTags& tags, RecordActivity record)
      : PlainTransport(tags, std::move(record)), guards_(guards) {}
  void send(Node& from, Node& to, int64_t bytes) override {
    Guard* guard = guards_.here();
    if (!guard) return PlainTransport::send(from, to, bytes);
    const double start = sim_now();
    guards_.check_cut(*guard);
    auto comm = sg4::Comm::sendto_async(from.host(), to.host(), uint64_t(bytes));
    const auto left = guards_.wait_cut(*guard, *comm);
    const int64_t moved = left ? bytes - std::min(bytes, int64_t(std::llround(*left))) : bytes;
    sent(from, to, start, moved);
    guard->bytes += moved, guard->seconds += sim_now() - start;
    if (left) throw HospitalLost{};
  }

 private:
  FaultGuards& guards_;
};

class FluidTransport : public PlainTransport {
 public:
  FluidTransport(const World& world, const ActorTags& tags, RecordActivity record)
      : PlainTransport(tags, std::move(record)), scenario_(world.scenario) {
    // The fluid model shares the server's links only: the backbone they both cross must never
    // be the narrower one.
    const auto& p = world.platform;
    const double server_bps = p.server_spec.uplink_bps + p.server_spec.downlink_bps;
    if (scenario_.platform.backbone_bandwidth_bps < server_bps)
      throw scenario_.error_at("timing.network", "fluid needs platform.backbone.bandwidth_bps (" +
                                                     std::to_string(scenario_.platform.backbone_bandwidth_bps) +
                                                     ") at least the server's uplink + downlink (" +
                                                     std::to_string(server_bps) +
                                                     " bit/s), so that only the server's links are shared");
    fluid_ = std::make_unique<StarFluid>(p, scenario_.platform.backbone_latency_s);
  }
  void send(Node& from, Node& to, int64_t bytes) override {
    const double start = sim_now();
    fluid_->transfer(from.is_server() ? to.id() : from.id(), to.is_server(), bytes);
    sent(from, to, start, bytes);
  }
  void check_route(const Node& from, const Node& to) const override {
    // Refused at set-up from the algorithm's traits (algorithms/registry.hpp): reaching it is a bug.
    if (!from.is_server() && !to.is_server())
      throw std::logic_error("a transfer between hospitals under timing.network: fluid: algorithm '" +
                             scenario_.algorithm.name + "''s registry entry does not declare sends_peer_to_peer");
  }

 private:
  const Scenario& scenario_;
  std::unique_ptr<StarFluid> fluid_;
};

// Every transfer a TCP connection in ns-3 (sim/network/packet_network.hpp): host 0 is the server,
// host 1 + i hospital i, each attached as the generated star attaches it.
class PacketTransport : public PlainTransport {
 public:
  PacketTransport(const World& world, const ActorTags& tags, RecordActivity record) : PlainTransport(tags, std::move(record)) {
    const auto& p = world.platform;
    const auto& s = world.scenario;
    // The star's backbone becomes a latency in ns-3: refused where its bandwidth could bind.
    double uplinks = p.server_spec.uplink_bps;
    for (const auto& h : p.hospital_specs) uplinks += h.uplink_bps;
    if (s.platform.backbone_bandwidth_bps < uplinks)
      throw s.error_at("timing.network", "ns3 needs platform.backbone.bandwidth_bps (" +
                                             std::to_string(s.platform.backbone_bandwidth_bps) +
                                             ") at least every host's uplink together (" + std::to_string(uplinks) +
                                             " bit/s): its star carries the backbone as a latency, never a bottleneck");
    // The server's broadcast opens a connection to every hospital at once, each from one of the
    // 16,384 ephemeral ports ns-3 gives a host.
    if (p.hospital_specs.size() > network::PacketNetwork::kMaxHospitals)
      throw s.error_at("timing.network", "ns3 carries at most " + std::to_string(network::PacketNetwork::kMaxHospitals) +
                                             " hospitals (a host's ephemeral ports, one per connection at once); this "
                                             "platform has " + std::to_string(p.hospital_specs.size()) + " (use default or cm02)");
    packets_ = std::make_unique<network::PacketNetwork>(
        network::star_attachments(p.server_spec, p.hospital_specs, s.platform.backbone_latency_s), s.timing.tcp, p.server);
  }
  void send(Node& from, Node& to, int64_t bytes) override {
    const double start = sim_now();
    packets_->transfer(host(from), host(to), bytes);
    sent(from, to, start, bytes);
  }

 private:
  static int host(const Node& n) { return n.is_server() ? 0 : 1 + n.id(); }
  std::unique_ptr<network::PacketNetwork> packets_;
};

}  // namespace

std::unique_ptr<Transport> make_transport(const World& world, FaultGuards& guards, const ActorTags& tags,
                                          RecordActivity record) {
  if (world.scenario.timing.network == NetworkModel::Fluid) return std::make_unique<FluidTransport>(world, tags, std::move(record));
  if (world.scenario.timing.network == NetworkModel::Ns3) return std::make_unique<PacketTransport>(world, tags, std::move(record));
  if (guards.any()) return std::make_unique<GuardedTransport>(guards, tags, std::move(record));
  return std::make_unique<PlainTransport>(tags, std::move(record));
}

}  // namespace fedgrid

#include "sim/engine/transport.hpp"
#include "sim/engine/sim_clock.hpp"

#include <simgrid/s4u.hpp>
#include <xbt/config.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>
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

// A transfer's duration alone on its route (output.critical_path's contention), by the rule the
// network model applies to a lone flow: latency_factor x the route's latency + bytes / its rate,
// the rate bandwidth_factor x the narrowest link, capped by TCP-gamma / (2 x latency) and, with
// cross-traffic, by the reverse route's links carrying 0.05 of it (SimGrid's LV08 defaults; CM02
// and fluid: factors 1, neither cap). Not computed unless asked; none under ns3.
class AloneTime {
 public:
  explicit AloneTime(const Scenario& s) : on_(s.output.critical_path && s.timing.network != NetworkModel::Ns3) {
    if (s.timing.network != NetworkModel::Lv08) return;
    latency_factor_ = s.timing.lv08.latency_factor, bandwidth_factor_ = s.timing.lv08.bandwidth_factor;
    gamma_ = simgrid::config::get_value<double>("network/TCP-gamma");
    cross_traffic_ = simgrid::config::get_value<bool>("network/crosstraffic");
  }
  double operator()(const Node& from, const Node& to, int64_t bytes) const {
    if (!on_) return -1;
    std::vector<sg4::Link*> links;
    double latency = 0;
    from.host()->route_to(to.host(), links, &latency);
    double rate = narrowest(links) * bandwidth_factor_;
    if (gamma_ > 0 && latency > 0) rate = std::min(rate, gamma_ / (2 * latency));
    if (cross_traffic_) {
      std::vector<sg4::Link*> back;
      double back_latency = 0;
      to.host()->route_to(from.host(), back, &back_latency);
      rate = std::min(rate, narrowest(back) * bandwidth_factor_ / 0.05);
    }
    return latency_factor_ * latency + double(bytes) / rate;
  }

 private:
  static double narrowest(const std::vector<sg4::Link*>& links) {
    double bps = std::numeric_limits<double>::infinity();
    for (const sg4::Link* l : links) bps = std::min(bps, l->get_bandwidth());
    return bps;
  }
  bool on_;
  double latency_factor_ = 1, bandwidth_factor_ = 1, gamma_ = 0;
  bool cross_traffic_ = false;
};

class PlainTransport : public Transport {
 public:
  PlainTransport(const Scenario& scenario, const ActorTags& tags, RecordActivity record)
      : alone_(scenario), tags_(tags), record_(std::move(record)) {}
  void send(Node& from, Node& to, int64_t bytes) override {
    const double start = sim_now();
    sg4::Comm::sendto(from.host(), to.host(), uint64_t(bytes));
    sent(from, to, start, bytes);
  }

 protected:
  void sent(Node& from, Node& to, double start, int64_t bytes) {
    Activity a{start, sim_now(), from.name(), "send", to.name(), bytes, 0.0, tags_.round()};
    a.alone_s = alone_(from, to, bytes);
    record_(a, &from, &to);
  }

 private:
  AloneTime alone_;
  const ActorTags& tags_;
  RecordActivity record_;
};

// A guarded hospital's transfer ends early when its work is cut: the bytes that moved are
// counted, and the hospital's work is lost.
class GuardedTransport : public PlainTransport {
 public:
  GuardedTransport(const Scenario& scenario, FaultGuards& guards, const ActorTags& tags, RecordActivity record)
      : PlainTransport(scenario, tags, std::move(record)), guards_(guards) {}
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
      : PlainTransport(world.scenario, tags, std::move(record)), scenario_(world.scenario) {
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
  PacketTransport(const World& world, const ActorTags& tags, RecordActivity record)
      : PlainTransport(world.scenario, tags, std::move(record)) {
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
  if (guards.any()) return std::make_unique<GuardedTransport>(world.scenario, guards, tags, std::move(record));
  return std::make_unique<PlainTransport>(world.scenario, tags, std::move(record));
}

}  // namespace fedgrid

// fedgrid-netbench: the transfer patterns of federated rounds on the generated star, under one
// network model (default/LV08, cm02, fluid or ns3), with the same classes fedgrid's transports
// use (sim/engine/transport.cpp): SimGrid's Comm::sendto, StarFluid, PacketNetwork. No training,
// no scenario: bench/network_vs_ns3.sh runs it over grids and compares the models.
//
//   fedgrid-netbench MODEL PATTERN BYTES SERVER HOSPITALS [BACKBONE_LATENCY_S]
//     MODEL      default | cm02 | fluid | ns3
//     PATTERN    up (every hospital to the server at once) | down (the server to every hospital
//                at once) | round (down, then each hospital up as soon as its copy arrived) |
//                relay (server -> h0 -> h1 ... -> server, one after another) | peer (each
//                hospital to the next, all at once) | same (as many transfers as hospitals, all
//                from h0 to the server at once: one host's connections sharing its link)
//     SERVER     UP_BPS:DOWN_BPS:LATENCY_S
//     HOSPITALS  COUNT:UP_BPS:DOWN_BPS:LATENCY_S[,COUNT:...]
// NETBENCH_CONGESTION (environment): ns3's congestion control (timing.tcp.congestion), default cubic.
// NETBENCH_SIMGRID_CFG (environment): one more SimGrid setting, e.g. network/latency-factor:4
// (bench/network/fit_lv08.py tries LV08's factors with it).
// Prints CSV: flow,from,to,bytes,start_s,end_s (hosts: server, h0, h1, ...), then on stderr
// the wall seconds, the peak resident memory and, under ns3, ns-3's event count.
#include <simgrid/s4u.hpp>
#include <sys/resource.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <cstdio>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "platforms/topology.hpp"
#include "sim/engine/star_fluid.hpp"
#include "sim/network/packet_network.hpp"

namespace sg4 = simgrid::s4u;
using fedgrid::platforms::MachineSpec;

namespace {

std::vector<double> numbers(const std::string& text, char sep) {
  std::vector<double> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, sep);) out.push_back(std::stod(item));
  return out;
}

MachineSpec machine(const std::string& name, double up, double down, double latency) {
  MachineSpec m;
  m.name = name, m.tier = "bench", m.speed_flops = 1e9, m.uplink_bps = up, m.downlink_bps = down, m.latency_s = latency;
  return m;
}

struct Record {
  std::string from, to;
  int64_t bytes;
  double start, end;
};

// One way to move bytes between hosts (index 0: the server, 1 + i: hospital i).
class Mover {
 public:
  Mover(const std::string& model, const fedgrid::platforms::PlatformHosts& p, double backbone_latency)
      : model_(model), platform_(p) {
    if (model == "fluid") fluid_ = std::make_unique<fedgrid::StarFluid>(p, backbone_latency);
    if (model == "ns3") {
      const auto hosts = fedgrid::network::star_attachments(p.server_spec, p.hospital_specs, backbone_latency);
      fedgrid::network::TcpSettings tcp;
      if (const char* cc = std::getenv("NETBENCH_CONGESTION")) tcp.congestion = cc;
      packets_ = std::make_unique<fedgrid::network::PacketNetwork>(hosts, tcp, p.server);
    }
  }
  void move(int from, int to, int64_t bytes) {
    if (packets_) return packets_->transfer(from, to, bytes);
    if (fluid_) {
      if (from != 0 && to != 0) throw std::invalid_argument("fluid carries transfers to and from the server only");
      return fluid_->transfer(from == 0 ? to - 1 : from - 1, to == 0, bytes);
    }
    sg4::Comm::sendto(host(from), host(to), uint64_t(bytes));
  }
  std::string name(int i) const { return i == 0 ? "server" : "h" + std::to_string(i - 1); }
  uint64_t events() const { return packets_ ? packets_->stats().events : 0; }

 private:
  sg4::Host* host(int i) const { return i == 0 ? platform_.server : platform_.hospitals[size_t(i - 1)]; }
  std::string model_;
  const fedgrid::platforms::PlatformHosts& platform_;
  std::unique_ptr<fedgrid::StarFluid> fluid_;
  std::unique_ptr<fedgrid::network::PacketNetwork> packets_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: fedgrid-netbench MODEL PATTERN BYTES SERVER HOSPITALS [BACKBONE_LATENCY_S]\n");
    return 2;
  }
  const std::string model = argv[1], pattern = argv[2];
  const int64_t bytes = int64_t(std::stod(argv[3]));
  const auto server = numbers(argv[4], ':');
  const double backbone_latency = argc > 6 ? std::stod(argv[6]) : 0.0;
  std::vector<MachineSpec> hospitals;
  std::stringstream groups(argv[5]);
  for (std::string g; std::getline(groups, g, ',');) {
    const auto v = numbers(g, ':');
    for (int i = 0; i < int(v.at(0)); ++i)
      hospitals.push_back(machine("h" + std::to_string(hospitals.size()), v.at(1), v.at(2), v.at(3)));
  }
  const auto wall0 = std::chrono::steady_clock::now();
  char quiet[] = "--log=xbt_cfg.thres:warning";
  char* sg_argv[] = {argv[0], quiet, nullptr};
  int sg_argc = 2;
  sg4::Engine engine(&sg_argc, sg_argv);
  engine.set_config("network/optim:Full");
  if (model == "cm02" || model == "fluid" || model == "ns3") {  // ns3: SimGrid's network carries nothing
    engine.set_config("network/model:CM02");
    for (const char* c : {"network/latency-factor:1", "network/bandwidth-factor:1", "network/weight-S:0",
                          "network/TCP-gamma:0", "network/crosstraffic:0"})
      engine.set_config(c);
  } else if (model != "default") {
    std::fprintf(stderr, "unknown model '%s'\n", model.c_str());
    return 2;
  }
  if (const char* cfg = std::getenv("NETBENCH_SIMGRID_CFG")) engine.set_config(cfg);
  const auto platform = fedgrid::platforms::build_star_platform(
      machine("server", server.at(0), server.at(1), server.at(2)), hospitals, {100e9, backbone_latency});
  Mover mover(model, platform, backbone_latency);
  std::vector<Record> records;
  const int n = int(hospitals.size());
  auto timed = [&](int from, int to) {
    const double start = sg4::Engine::get_clock();
    mover.move(from, to, bytes);
    records.push_back({mover.name(from), mover.name(to), bytes, start, sg4::Engine::get_clock()});
  };
  auto on = [&](int i, std::function<void()> work) { sg4::Actor::create("a" + std::to_string(i), platform.server, work); };
  if (pattern == "up") for (int i = 1; i <= n; ++i) on(i, [&, i] { timed(i, 0); });
  else if (pattern == "down") for (int i = 1; i <= n; ++i) on(i, [&, i] { timed(0, i); });
  else if (pattern == "round") for (int i = 1; i <= n; ++i) on(i, [&, i] { timed(0, i), timed(i, 0); });
  else if (pattern == "peer") for (int i = 1; i <= n; ++i) on(i, [&, i] { timed(i, i % n + 1); });
  else if (pattern == "same") for (int i = 1; i <= n; ++i) on(i, [&] { timed(1, 0); });
  else if (pattern == "relay") on(0, [&] { for (int i = 0; i <= n; ++i) timed(i, i == n ? 0 : i + 1); });
  else {
    std::fprintf(stderr, "unknown pattern '%s'\n", pattern.c_str());
    return 2;
  }
  engine.run();
  std::printf("flow,from,to,bytes,start_s,end_s\n");
  for (size_t i = 0; i < records.size(); ++i)
    std::printf("%zu,%s,%s,%lld,%.9f,%.9f\n", i, records[i].from.c_str(), records[i].to.c_str(),
                (long long)records[i].bytes, records[i].start, records[i].end);
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::fprintf(stderr, "wall_s %.3f peak_rss_mb %.1f ns3_events %llu\n",
               std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count(), ru.ru_maxrss / 1024.0,
               (unsigned long long)mover.events());
  return 0;
}

#include "platforms/topology.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <filesystem>

#include "sim/input_error.hpp"

namespace fedgrid::platforms {
namespace sg4 = simgrid::s4u;

MachineSpec machine_from_tier(const std::string& name, const Tier& t) {
  return {name, t.name, t.speed_flops, t.uplink_bps, t.downlink_bps, t.latency_s, t.power_idle_w, t.power_max_w};
}

namespace {

// SimGrid's energy plugin reads "idle:one core busy:all cores busy"; our hosts are one
// processing unit, so the last two coincide.
void set_power(sg4::Host* host, double idle_w, double max_w) {
  const std::string w = std::to_string(idle_w) + ":" + std::to_string(max_w) + ":" + std::to_string(max_w);
  host->set_property("wattage_per_state", w);
  host->set_property("wattage_off", std::to_string(idle_w * 0.0));
}

void add_machine(sg4::NetZone* zone, const MachineSpec& m, sg4::Link* backbone) {
  sg4::Host* host = zone->create_host(m.name, m.speed_flops);
  host->set_property("tier", m.tier);
  set_power(host, m.power_idle_w, m.power_max_w);
  // SimGrid bandwidths are bytes/s; latency is charged on the uplink and on the downlink, so
  // a hospital-to-server transfer pays both access latencies.
  sg4::Link* up = zone->create_link(m.name + "_up", m.uplink_bps / 8.0)->set_latency(m.latency_s)->seal();
  sg4::Link* down = zone->create_link(m.name + "_down", m.downlink_bps / 8.0)->set_latency(m.latency_s)->seal();
  zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr,
                  {sg4::LinkInRoute(up), sg4::LinkInRoute(backbone)}, false);
  zone->add_route(nullptr, host->get_netpoint(), nullptr, nullptr,
                  {sg4::LinkInRoute(backbone), sg4::LinkInRoute(down)}, false);
}

}  // namespace

PlatformHosts build_star_platform(const MachineSpec& server, const std::vector<MachineSpec>& hospitals,
                                  const Backbone& backbone) {
  auto* zone = sg4::create_star_zone("federation");
  sg4::Link* bb = zone->create_link("backbone", backbone.bandwidth_bps / 8.0)->set_latency(backbone.latency_s)->seal();
  add_machine(zone, server, bb);
  for (const auto& h : hospitals) add_machine(zone, h, bb);
  zone->seal();
  PlatformHosts out;
  out.server = sg4::Host::by_name(server.name);
  out.server_spec = server;
  out.hospital_specs = hospitals;
  for (const auto& h : hospitals) out.hospitals.push_back(sg4::Host::by_name(h.name));
  return out;
}

PlatformHosts load_xml_platform(const std::string& xml, const std::string& server_host, const TierCatalog& tiers) {
  if (!std::filesystem::exists(xml)) throw InputError(xml, 0, "platform.xml", "platform file not found");
  auto* engine = sg4::Engine::get_instance();
  try {
    engine->load_platform(xml);
  } catch (const std::exception& e) {
    throw InputError(xml, 0, "platform.xml", std::string("SimGrid cannot load it: ") + e.what());
  }
  PlatformHosts out;
  out.server = engine->host_by_name_or_null(server_host);
  if (!out.server) throw InputError(xml, 0, "platform.server.host", "no host named '" + server_host + "' in the XML");
  auto describe = [&](sg4::Host* h) {
    const char* tier = h->get_property("tier");
    if (!tier) throw InputError(xml, 0, "tier", "host '" + h->get_name() + "' has no 'tier' property");
    const Tier* t = tiers.find(tier);
    if (!t) throw InputError(xml, 0, "tier", "host '" + h->get_name() + "': unknown tier '" + tier + "' (known: " + tiers.names() + ")");
    MachineSpec m = machine_from_tier(h->get_cname(), *t);
    m.speed_flops = h->get_speed();
    if (!h->get_property("wattage_per_state")) set_power(h, m.power_idle_w, m.power_max_w);
    return m;
  };
  out.server_spec = describe(out.server);
  auto hosts = engine->get_all_hosts();
  std::sort(hosts.begin(), hosts.end(), [](auto* a, auto* b) { return a->get_name() < b->get_name(); });
  for (auto* h : hosts) {
    if (h == out.server) continue;
    out.hospitals.push_back(h);
    out.hospital_specs.push_back(describe(h));
  }
  if (out.hospitals.empty()) throw InputError(xml, 0, "platform.xml", "the platform has no hospital hosts");
  return out;
}

}  // namespace fedgrid::platforms

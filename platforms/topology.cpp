#include "platforms/topology.hpp"

#include <fnmatch.h>
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <tuple>

#include "platforms/platform_error.hpp"
#include "platforms/platform_xml_check.hpp"

namespace fedgrid::platforms {
namespace sg4 = simgrid::s4u;

MachineSpec machine_from_tier(const std::string& name, const Tier& t) {
  return {name,           t.name,          t.speed_flops,    t.uplink_bps,     t.downlink_bps,
          t.latency_s,    t.power_idle_w,  t.power_max_w,    t.profile_device, t.speed_factor};
}

namespace {

// SimGrid's energy plugin reads "idle:one core busy:all cores busy"; our hosts are one
// processing unit, so the last two coincide.
void set_power(sg4::Host* host, double idle_w, double max_w) {
  const std::string w = std::to_string(idle_w) + ":" + std::to_string(max_w) + ":" + std::to_string(max_w);
  host->set_property("wattage_per_state", w);
  host->set_property("wattage_off", std::to_string(idle_w * 0.0));
}

sg4::Host* add_host(sg4::NetZone* zone, const MachineSpec& m) {
  sg4::Host* host = zone->create_host(m.name, m.speed_flops);
  host->set_property("tier", m.tier);
  set_power(host, m.power_idle_w, m.power_max_w);
  return host;
}

void add_machine(sg4::NetZone* zone, const MachineSpec& m, sg4::Link* backbone) {
  sg4::Host* host = add_host(zone, m);
  // SimGrid bandwidths are bytes/s; latency is charged on the uplink and on the downlink, so
  // a hospital-to-server transfer pays both access latencies.
  sg4::Link* up = zone->create_link(m.name + "_up", m.uplink_bps / 8.0)->set_latency(m.latency_s)->seal();
  sg4::Link* down = zone->create_link(m.name + "_down", m.downlink_bps / 8.0)->set_latency(m.latency_s)->seal();
  zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr,
                  {sg4::LinkInRoute(up), sg4::LinkInRoute(backbone)}, false);
  zone->add_route(nullptr, host->get_netpoint(), nullptr, nullptr,
                  {sg4::LinkInRoute(backbone), sg4::LinkInRoute(down)}, false);
}

// A link split in two for cohorts: the bandwidth part (no latency, may be crossed k times) and
// the latency part (same bandwidth, so it never binds tighter; crossed once).
struct SplitLink {
  sg4::Link* bandwidth;
  sg4::Link* latency;
};

SplitLink split_link(sg4::NetZone* zone, const std::string& name, double bytes_per_s, double latency_s) {
  return {zone->create_link(name, bytes_per_s)->seal(),
          zone->create_link(name + "_latency", bytes_per_s)->set_latency(latency_s)->seal()};
}

struct SharedLinks {
  SplitLink backbone, server_up, server_down;
};

// A host that stands for a cohort of k hospitals, with its explicit routes to and from the
// server: its own access link once, each shared bandwidth link k times, each latency once.
// (A star zone keeps each link once per route, so cohorts live in a zone with full routes.)
void add_cohort(sg4::NetZone* zone, sg4::Host* server, const MachineSpec& m, int k, const SharedLinks& l) {
  sg4::Host* host = add_host(zone, m);
  sg4::Link* up = zone->create_link(m.name + "_up", m.uplink_bps / 8.0)->set_latency(m.latency_s)->seal();
  sg4::Link* down = zone->create_link(m.name + "_down", m.downlink_bps / 8.0)->set_latency(m.latency_s)->seal();
  std::vector<sg4::LinkInRoute> to_server{sg4::LinkInRoute(up), sg4::LinkInRoute(l.backbone.latency),
                                          sg4::LinkInRoute(l.server_down.latency)};
  std::vector<sg4::LinkInRoute> from_server{sg4::LinkInRoute(l.server_up.latency), sg4::LinkInRoute(l.backbone.latency),
                                            sg4::LinkInRoute(down)};
  for (int i = 0; i < k; ++i) {
    to_server.emplace_back(l.backbone.bandwidth), to_server.emplace_back(l.server_down.bandwidth);
    from_server.emplace_back(l.server_up.bandwidth), from_server.emplace_back(l.backbone.bandwidth);
  }
  zone->add_route(host->get_netpoint(), server->get_netpoint(), nullptr, nullptr, to_server, false);
  zone->add_route(server->get_netpoint(), host->get_netpoint(), nullptr, nullptr, from_server, false);
}

}  // namespace

std::vector<int> group_cohorts(const std::vector<MachineSpec>& hospitals, const std::vector<int64_t>& samples) {
  std::map<std::tuple<std::string, double, double, double, double, double, double, int64_t>, int> first;
  std::vector<int> representative(hospitals.size());
  for (size_t i = 0; i < hospitals.size(); ++i) {
    const auto& m = hospitals[i];
    auto key = std::make_tuple(m.tier, m.speed_flops, m.uplink_bps, m.downlink_bps, m.latency_s, m.power_idle_w,
                               m.power_max_w, samples[i]);
    representative[i] = first.emplace(key, int(i)).first->second;
  }
  return representative;
}

PlatformHosts build_star_platform(const MachineSpec& server, const std::vector<MachineSpec>& hospitals,
                                  const Backbone& backbone, const std::vector<int>& representative) {
  PlatformHosts out;
  out.server_spec = server;
  out.hospital_specs = hospitals;
  out.representative = representative;
  if (out.representative.empty())
    for (size_t i = 0; i < hospitals.size(); ++i) out.representative.push_back(int(i));
  out.cohort_size.assign(hospitals.size(), 0);
  for (int r : out.representative) out.cohort_size[size_t(r)]++;
  for (size_t i = 0; i < hospitals.size(); ++i) out.cohort_size[i] = out.cohort_size[size_t(out.representative[i])];

  sg4::NetZone* zone = nullptr;
  if (representative.empty()) {
    zone = sg4::create_star_zone("federation");
    sg4::Link* bb =
        zone->create_link("backbone", backbone.bandwidth_bps / 8.0)->set_latency(backbone.latency_s)->seal();
    add_machine(zone, server, bb);
    for (const auto& h : hospitals) add_machine(zone, h, bb);
  } else {
    // A full zone's routing table grows as hosts squared: fine for cohorts, never for 100k hosts.
    const size_t hosts = size_t(std::count_if(out.representative.begin(), out.representative.end(),
                                              [i = 0](int r) mutable { return r == i++; }));
    if (hosts > kMaxCohortHosts)
      throw PlatformError("timing.cohorts", 0, "timing.cohorts",
                       std::to_string(hosts) + " distinct hospitals (tier, overrides and sample count) make " +
                           std::to_string(hosts) + " cohorts, more than " + std::to_string(kMaxCohortHosts) +
                           ": cohorts pay off when many hospitals are identical (e.g. data.samples_per_hospital)");
    zone = sg4::create_full_zone("federation");
    const SharedLinks shared{split_link(zone, "backbone", backbone.bandwidth_bps / 8.0, backbone.latency_s),
                             split_link(zone, server.name + "_up", server.uplink_bps / 8.0, server.latency_s),
                             split_link(zone, server.name + "_down", server.downlink_bps / 8.0, server.latency_s)};
    sg4::Host* server_host = add_host(zone, server);
    for (size_t i = 0; i < hospitals.size(); ++i)
      if (out.representative[i] == int(i)) add_cohort(zone, server_host, hospitals[i], out.cohort_size[i], shared);
  }
  zone->seal();
  out.server = sg4::Host::by_name(server.name);
  for (size_t i = 0; i < hospitals.size(); ++i)
    out.hospitals.push_back(sg4::Host::by_name(hospitals[size_t(out.representative[i])].name));
  return out;
}

bool connected(simgrid::s4u::Host* from, simgrid::s4u::Host* to) {
  if (from == to) return true;
  std::vector<sg4::Link*> links;
  double latency = 0;
  try {
    from->route_to(to, links, &latency);
  } catch (const std::exception&) {  // SimGrid: "No route from zone A to zone B"
    return false;
  }
  return !links.empty() || latency > 0;  // what SimGrid's CM02 asks of a transfer
}

PlatformHosts load_xml_platform(const std::string& xml, const XmlMapping& mapping, const TierCatalog& tiers) {
  if (std::error_code ec; !std::filesystem::exists(xml, ec)) throw PlatformError(xml, 0, "platform.xml", "platform file not found");
  const auto declared = check_platform_xml(xml);  // SimGrid aborts on some bad values rather than throwing
  auto* engine = sg4::Engine::get_instance();
  try {
    engine->load_platform(xml);
    engine->seal_platform();  // routes are computed when zones seal (Floyd, clusters)
  } catch (const std::exception& e) {
    throw PlatformError(xml, 0, "platform.xml", std::string("SimGrid cannot load it: ") + e.what());
  }
  PlatformHosts out;
  out.server = engine->host_by_name_or_null(mapping.server_host);
  if (!out.server)
    throw PlatformError(xml, 0, "platform.server.host", "no host named '" + mapping.server_host + "' in the XML");
  auto matches = [](const std::string& pattern, const std::string& name) {
    return fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
  };
  auto tier_of = [&](sg4::Host* h) -> std::string {
    if (const char* tier = h->get_property("tier")) return tier;
    if (h == out.server) return mapping.server_tier;
    for (const auto& [pattern, tier] : mapping.tiers)
      if (matches(pattern, h->get_name())) return tier;
    throw PlatformError(xml, 0, "platform.xml_tiers",
                        "host '" + h->get_name() + "' has no 'tier' property and no platform.xml_tiers entry matches it");
  };
  auto describe = [&](sg4::Host* h) {
    const std::string tier = tier_of(h);
    const Tier* t = tiers.find(tier);
    if (!t) throw PlatformError(xml, 0, "tier", "host '" + h->get_name() + "': unknown tier '" + tier + "' (known: " + tiers.names() + ")");
    MachineSpec m = machine_from_tier(h->get_cname(), *t);
    m.speed_flops = h->get_speed();
    if (const char* device = h->get_property("profile_device")) m.profile_device = device;
    if (const char* factor = h->get_property("speed_factor")) {
      char* end = nullptr;
      m.speed_factor = std::strtod(factor, &end);
      if (*factor == '\0' || *end != '\0' || !(m.speed_factor > 0))
        throw PlatformError(xml, 0, "speed_factor", "host '" + h->get_name() + "': expected a positive number, got '" + factor + "'");
    }
    if (!h->get_property("wattage_per_state")) set_power(h, m.power_idle_w, m.power_max_w);
    return m;
  };
  out.server_spec = describe(out.server);
  // Hospitals in the order the XML declares them (a cluster's in radical order: node-2 before
  // node-10).
  std::vector<sg4::Host*> hosts;
  for (const auto& name : declared)
    if (auto* h = engine->host_by_name_or_null(name)) hosts.push_back(h);
  for (const auto& pattern : mapping.hospitals)
    if (std::none_of(hosts.begin(), hosts.end(), [&](auto* h) { return h != out.server && matches(pattern, h->get_name()); }))
      throw PlatformError(xml, 0, "platform.xml_hospitals", "no host but the server matches '" + pattern + "'");
  for (auto* h : hosts) {
    const bool hospital =
        h != out.server && (mapping.hospitals.empty() ||
                            std::any_of(mapping.hospitals.begin(), mapping.hospitals.end(),
                                        [&](const std::string& p) { return matches(p, h->get_name()); }));
    if (!hospital) {
      if (h != out.server && !h->get_property("wattage_per_state")) set_power(h, 0, 0);  // outside the federation
      continue;
    }
    out.hospitals.push_back(h);
    out.hospital_specs.push_back(describe(h));
  }
  if (out.hospitals.empty()) throw PlatformError(xml, 0, "platform.xml", "the platform has no hospital hosts");
  // SimGrid dies on a transfer with no path: every hospital must reach the server and back.
  for (auto* h : out.hospitals)
    for (auto [from, to] : {std::pair{h, out.server}, std::pair{out.server, h}})
      if (!connected(from, to))
        throw PlatformError(xml, 0, "platform.xml",
                            "no route from '" + from->get_name() + "' to '" + to->get_name() +
                                "': add a <route> (or zoneRoute) between them, or leave the host out with platform.xml_hospitals");
  for (size_t i = 0; i < out.hospitals.size(); ++i) out.representative.push_back(int(i));
  out.cohort_size.assign(out.hospitals.size(), 1);
  return out;
}

}  // namespace fedgrid::platforms

#pragma once
// Builds the simulated platform inside SimGrid: a server and hospitals, each with its own
// access links (up and down, its tier's bandwidth and latency) into one shared backbone.
// A transfer from A to B crosses A's uplink, the backbone and B's downlink, so the server's
// downlink is a real bottleneck when many hospitals upload at once.
#include <string>
#include <utility>
#include <vector>

#include "platforms/roster.hpp"
#include "platforms/tier_catalog.hpp"

namespace simgrid::s4u {
class Host;
}

namespace fedgrid::platforms {

// One machine as the simulation sees it: its tier's figures with any overrides applied.
struct MachineSpec {
  std::string name, tier;
  double speed_flops = 0, uplink_bps = 0, downlink_bps = 0, latency_s = 0;
  double power_idle_w = 0, power_max_w = 0;
  std::string profile_device;  // timing.compute: profile (empty: none named)
  double speed_factor = 1;
};

MachineSpec machine_from_tier(const std::string& name, const Tier& tier);

struct Backbone {
  double bandwidth_bps = 100e9;
  double latency_s = 0;
};

struct PlatformHosts {
  simgrid::s4u::Host* server = nullptr;
  std::vector<simgrid::s4u::Host*> hospitals;  // in hospital id order (a cohort's members share one)
  std::vector<MachineSpec> hospital_specs;     // same order
  MachineSpec server_spec;
  std::vector<int> representative;  // same order: the hospital whose host acts for this one (itself alone)
  std::vector<int> cohort_size;     // same order: members of this hospital's cohort (1 alone)
};

// Star topology from machine specs. Must be called once, before the simulation runs.
//
// With `representative` (timing.cohorts), hospitals that share a representative are one host:
// its flows to and from the server stand for k identical flows. Its route crosses the shared
// links (backbone, server access links) k times, so SimGrid's max-min solver charges k times
// its rate there, and once on its own access link: the rate it gets is exactly the rate each
// of k separate flows would get under max-min sharing (CM02). Shared links then carry no
// latency (it sits on separate latency links) so that k crossings do not multiply it. Cohort
// hosts reach the server only (no hospital-to-hospital routes).
PlatformHosts build_star_platform(const MachineSpec& server, const std::vector<MachineSpec>& hospitals,
                                  const Backbone& backbone, const std::vector<int>& representative = {});

// Most distinct hosts a cohort platform takes (its routing table grows as their square).
constexpr size_t kMaxCohortHosts = 2000;

// Cohorts for timing.cohorts: hospitals with equal machine figures and equal `samples` share a
// representative (the first of them by index). Returns representative[i] for every hospital.
std::vector<int> group_cohorts(const std::vector<MachineSpec>& hospitals, const std::vector<int64_t>& samples);

// Which hosts of a user's XML platform take part, and their tiers.
struct XmlMapping {
  std::string server_host = "server";
  std::string server_tier = "cloud";  // when the server host has no "tier" property
  // Hospital hosts: names or glob patterns (node-*.site); empty: every host but the server.
  std::vector<std::string> hospitals;
  // (host pattern, tier) for hosts without a "tier" property: the first that matches.
  std::vector<std::pair<std::string, std::string>> tiers;
};

// A user's SimGrid XML platform, as SimGrid loads it: the host named `server_host` is the
// server, the hosts `hospitals` selects are hospitals (in the order the XML declares them). A host's tier is its
// "tier" property, else the first of `tiers` that matches it (the server: server_tier).
// Speeds and links come from the XML; the tier names the group in metrics and supplies power
// figures when the XML has none (hosts outside the federation get 0 W, so SimGrid's energy
// plugin has nothing to warn about). Throws PlatformError for a missing server host, a
// pattern that matches no host, a hospital without a tier, or an unknown tier.
PlatformHosts load_xml_platform(const std::string& xml, const XmlMapping& mapping, const TierCatalog& tiers);

// Whether a transfer from `from` to `to` has a path (links, or at least a latency), as
// SimGrid's network model requires; it aborts the process otherwise.
bool connected(simgrid::s4u::Host* from, simgrid::s4u::Host* to);

}  // namespace fedgrid::platforms

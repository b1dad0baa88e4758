// The platform a run is set up on: hospitals, the star, the compute profile (run_setup.hpp).
#include "sim/engine/run_setup.hpp"

#include <sstream>

#include "platforms/platform_xml_check.hpp"
#include "platforms/roster.hpp"
#include "sim/engine/faults.hpp"
#include "sim/engine/population.hpp"
#include "sim/engine/world.hpp"

namespace fedgrid::run_setup {
namespace sg4 = simgrid::s4u;

// timing.compute: profile: the profile, once every machine is known to name a device in it.
ComputeProfile load_profile(const Scenario& s, const platforms::PlatformHosts& platform) {
  ComputeProfile profile = ComputeProfile::load(s.timing.profile, "timing.profile");
  auto check = [&](const platforms::MachineSpec& m, const std::string& where_to_set) {
    if (m.profile_device.empty())
      throw s.error_at("timing.compute", "'" + m.name + "' (tier " + m.tier + ") names no profile device: set " +
                                             where_to_set + " (devices in " + s.timing.profile + ": " +
                                             profile.devices() + ")");
    if (!profile.has_device(m.profile_device))
      throw s.error_at("timing.profile", "'" + m.name + "' runs on profile device '" + m.profile_device +
                                             "', which " + s.timing.profile + " does not hold (devices: " +
                                             profile.devices() + ")");
  };
  // The server trains only in some algorithms (UniFed): its device is checked when it does.
  if (!platform.server_spec.profile_device.empty()) check(platform.server_spec, "");
  for (const auto& m : platform.hospital_specs)
    check(m, "profile_device on its hospital group, roster row or XML host, or of tier " + m.tier + " in " +
                 s.platform.tiers_file);
  return profile;
}

// What the scenario says of an XML platform's hosts: the server, the hospitals, their tiers.
platforms::XmlMapping xml_mapping(const Scenario& s) {
  platforms::XmlMapping m{s.platform.server_host, s.platform.server_tier, {}, {}};
  std::stringstream list(s.platform.xml_hospitals);
  for (std::string item; std::getline(list, item, ',');) {
    const auto first = item.find_first_not_of(" \t"), last = item.find_last_not_of(" \t");
    if (first != std::string::npos) m.hospitals.push_back(item.substr(first, last - first + 1));
  }
  for (const auto& rule : s.platform.xml_tiers) m.tiers.emplace_back(rule.hosts, rule.tier);
  return m;
}

// The server's tier, from the catalog (an XML platform's server may carry its own).
void check_server_tier(const Scenario& s, const platforms::TierCatalog& catalog) {
  if (!catalog.find(s.platform.server_tier) && s.platform.xml.empty())
    throw s.error_at("platform.server.tier",
                     "unknown tier '" + s.platform.server_tier + "' (known: " + catalog.names() + ")");
}

// The fault traces name hospitals: read them against the population, so that validate refuses
// what run would.
void check_fault_traces(const Scenario& s, const std::vector<platforms::MachineSpec>& machines) {
  if (!s.faults.any()) return;
  std::vector<std::string> names;
  for (const auto& m : machines) names.push_back(m.name);
  FaultPlan(s, names);
}

// The hospitals' machines (platform.hospitals; none from a user's XML platform, which is loaded
// whole here) and their sample counts. Returns the machines the star is built from.
std::vector<platforms::MachineSpec> load_hospitals(World& world) {
  const Scenario& s = world.scenario;
  if (!s.platform.xml.empty()) {
    world.platform = platforms::load_xml_platform(s.platform.xml, xml_mapping(s), world.catalog);
    if (s.data.samples_per_hospital) world.sample_counts.assign(world.platform.hospitals.size(), *s.data.samples_per_hospital);
    return {};
  }
  auto population = hospital_population(s, world.catalog);
  world.sample_counts = std::move(population.samples);
  check_fault_traces(s, population.machines);
  return std::move(population.machines);
}

// The star around the hospitals, built once the data is split: with cohorts the sample counts
// decide who is identical.
void build_star(World& world, const std::vector<platforms::MachineSpec>& machines) {
  const Scenario& s = world.scenario;
  std::vector<int> representative;
  if (s.timing.cohorts) {
    std::vector<int64_t> samples;
    for (size_t h = 0; h < world.splits.size(); ++h) samples.push_back(world.train_samples(h));
    representative = platforms::group_cohorts(machines, samples);
  }
  world.platform = platforms::build_star_platform(server_machine(s, world.catalog), machines,
                                                  {s.platform.backbone_bandwidth_bps, s.platform.backbone_latency_s},
                                                  representative);
}

platforms::MachineSpec server_machine(const Scenario& s, const platforms::TierCatalog& catalog) {
  const auto& p = s.platform;
  auto server = platforms::machine_from_tier("server", *catalog.find(p.server_tier));
  if (p.server_speed_flops) server.speed_flops = *p.server_speed_flops;
  if (p.server_uplink_bps) server.uplink_bps = *p.server_uplink_bps;
  if (p.server_downlink_bps) server.downlink_bps = *p.server_downlink_bps;
  if (p.server_latency_s) server.latency_s = *p.server_latency_s;
  if (p.server_profile_device) server.profile_device = *p.server_profile_device;
  if (p.server_speed_factor) server.speed_factor = *p.server_speed_factor;
  return server;
}

}  // namespace fedgrid::run_setup

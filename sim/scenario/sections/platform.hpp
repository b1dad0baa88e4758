#pragma once
// platform.*: the simulated machines (tier catalog, server, hospital groups or a roster or a
// SimGrid XML platform) and the backbone every access link joins.
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/core/mode_names.hpp"
#include "sim/scenario/sections/model.hpp"

namespace fedgrid {

// platform.hospitals[].vary.<figure>.dist: how a group's hospitals draw the figure
// (sim/engine/population.hpp).
enum class FigureDist { Lognormal, Uniform, Empirical };
inline constexpr ModeName<FigureDist> kFigureDists[] = {
    {FigureDist::Lognormal, "lognormal"}, {FigureDist::Uniform, "uniform"}, {FigureDist::Empirical, "empirical"}};
constexpr std::span<const ModeName<FigureDist>> modes_of(FigureDist) { return kFigureDists; }

// platform.hospitals[].vary.<figure>: each hospital of the group draws the figure from this
// distribution (sim/engine/population.hpp): lognormal {median, sigma}, uniform {min, max}, or
// empirical {file, column} (values resampled); min/max also bound lognormal and empirical draws.
struct FigureDraw {
  FigureDist dist = FigureDist::Lognormal;
  std::optional<double> median, sigma, min, max;
  std::string file, column;
};

struct HospitalGroup {
  int count = 1;
  std::string tier;
  std::string name;  // prefix; empty = tier name
  std::optional<double> speed_flops, uplink_bps, downlink_bps, latency_s;
  std::optional<std::string> profile_device;  // timing.compute: profile
  std::optional<double> speed_factor;
  std::optional<ModelChoice> model;  // this group's own model (local, fedskd)
  // Figures drawn per hospital, by name: speed_flops, uplink_bps, downlink_bps, latency_s, samples.
  std::map<std::string, FigureDraw> vary;
  int line = 0;  // where it was declared, for later error messages
};

// platform.xml_tiers: the tier of the XML hosts matching `hosts` (a name or glob pattern).
struct XmlTierRule {
  std::string hosts, tier;
};

struct PlatformSection {
  std::string tiers_file;  // resolved path
  std::string server_tier;
  std::string server_host;
  std::optional<std::string> server_profile_device;  // timing.compute: profile
  std::optional<double> server_speed_factor;
  // The server's own figures in place of its tier's (generated star only), as a hospital
  // group's overrides: capacity planning varies them (docs/guide/capacity-planning.md).
  std::optional<double> server_speed_flops, server_uplink_bps, server_downlink_bps, server_latency_s;
  std::vector<HospitalGroup> hospitals;
  std::string tier_ratio;  // "weak:medium:strong"; expanded into `hospitals`
  std::optional<int> hospital_count;
  std::string roster;  // resolved path or empty
  std::string xml;     // resolved path or empty
  std::string xml_hospitals;           // hospital hosts: names or glob patterns, comma-separated
  std::vector<XmlTierRule> xml_tiers;  // first match wins, after a host's own "tier" property
  double backbone_bandwidth_bps = 100e9;
  double backbone_latency_s = 0;
};

// platform.tier_ratio "7:2:1" with platform.hospital_count 30 -> groups of 21 weak, 6 medium,
// 3 strong (DynamicFL's --device_ratio, weak:medium:strong); nullopt when the text or the count
// does not fit.
std::optional<std::vector<HospitalGroup>> tier_ratio_groups(const std::string& text, std::optional<int> count);

}  // namespace fedgrid

#include "platforms/tier_catalog.hpp"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <filesystem>

#include "platforms/platform_error.hpp"

namespace fedgrid::platforms {

const Tier* TierCatalog::find(const std::string& name) const {
  for (const auto& t : tiers)
    if (t.name == name) return &t;
  return nullptr;
}

std::string TierCatalog::names() const {
  std::string s;
  for (const auto& t : tiers) s += (s.empty() ? "" : ", ") + t.name;
  return s;
}

TierCatalog load_tier_catalog(const std::string& file) {
  if (std::error_code ec; !std::filesystem::exists(file, ec)) throw PlatformError(file, 0, "platform.tiers", "tier catalog not found");
  YAML::Node root;
  try {
    root = YAML::LoadFile(file);
  } catch (const YAML::Exception& e) {
    throw PlatformError(file, e.mark.line + 1, "", "malformed YAML: " + e.msg);
  }
  const YAML::Node tiers = root["tiers"];
  if (!tiers || !tiers.IsMap()) throw PlatformError(file, 1, "tiers", "expected a mapping of tier names");
  TierCatalog catalog{file, {}};
  for (auto it = tiers.begin(); it != tiers.end(); ++it) {
    Tier t;
    if (!it->first.IsScalar() || !it->second.IsMap())
      throw PlatformError(file, it->first.Mark().line + 1, "tiers", "each tier is a name with a mapping of its figures");
    t.name = it->first.as<std::string>();
    // A copy: it->second lives in the iterator's temporary proxy, gone after this statement
    // (a reference to it read freed stack under AddressSanitizer, fuzz/fuzz_xml_platform.cpp).
    const YAML::Node n = it->second;
    const int line = it->first.Mark().line + 1;
    auto number = [&](const char* key, bool positive) {
      const std::string where = "tiers." + t.name + "." + key;
      if (!n[key]) throw PlatformError(file, line, where, "missing");
      double v;
      try {
        v = n[key].as<double>();
      } catch (const YAML::Exception&) {
        throw PlatformError(file, n[key].Mark().line + 1, where, "expected a number");
      }
      if (v < 0 || (positive && v == 0))
        throw PlatformError(file, n[key].Mark().line + 1, where, positive ? "must be > 0" : "must be >= 0");
      return v;
    };
    auto text = [&](const char* key) {
      if (!n[key].IsScalar())
        throw PlatformError(file, n[key].Mark().line + 1, "tiers." + t.name + "." + key, "expected a single value");
      return n[key].as<std::string>();
    };
    t.description = n["description"] ? text("description") : "";
    t.speed_flops = number("speed_flops", true);
    const double cores = number("cores", true);
    if (cores != std::floor(cores) || cores > 1e6)
      throw PlatformError(file, n["cores"].Mark().line + 1, "tiers." + t.name + ".cores", "expected a whole number of cores (at most 1000000)");
    t.cores = int(cores);
    t.memory_gb = number("memory_gb", true);
    t.uplink_bps = number("uplink_bps", true);
    t.downlink_bps = number("downlink_bps", true);
    t.latency_s = number("latency_s", false);
    t.power_idle_w = number("power_idle_w", false);
    t.power_max_w = number("power_max_w", false);
    if (n["profile_device"]) t.profile_device = text("profile_device");
    if (n["speed_factor"]) t.speed_factor = number("speed_factor", true);
    catalog.tiers.push_back(t);
  }
  return catalog;
}

}  // namespace fedgrid::platforms

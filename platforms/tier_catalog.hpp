#pragma once
// The tier catalog (platforms/tiers.yaml): what a weak, medium, strong or cloud machine is.
#include <string>
#include <vector>

namespace fedgrid::platforms {

struct Tier {
  std::string name, description;
  double speed_flops = 0;  // effective training FLOP/s
  int cores = 1;
  double memory_gb = 0;
  double uplink_bps = 0, downlink_bps = 0;  // bit/s
  double latency_s = 0;                     // one-way, access link
  double power_idle_w = 0, power_max_w = 0;
  // timing.compute: profile: the profiled device this tier's machines are, and how much faster
  // than it they run (seconds = profiled / speed_factor). Optional.
  std::string profile_device;
  double speed_factor = 1;
};

struct TierCatalog {
  std::string file;
  std::vector<Tier> tiers;  // in file order
  const Tier* find(const std::string& name) const;
  std::string names() const;  // "weak, medium, ..." for error messages
};

// Throws InputError naming the file, line and key of any missing or invalid figure.
TierCatalog load_tier_catalog(const std::string& file);

}  // namespace fedgrid::platforms

#pragma once
// A roster CSV: one hospital per row. Columns: name, tier (required) and the optional
// overrides speed_flops, uplink_bps, downlink_bps, latency_s, profile_device, speed_factor (an
// empty cell keeps the tier's; the last two are for timing.compute: profile), and samples (the
// hospital's training samples in a timing-only run).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fedgrid::platforms {

struct RosterEntry {
  std::string name, tier;
  std::optional<double> speed_flops, uplink_bps, downlink_bps, latency_s;
  std::optional<std::string> profile_device;
  std::optional<double> speed_factor;
  std::optional<int64_t> samples;
  int line = 0;
};

// Throws InputError naming the file, line and column of any problem.
std::vector<RosterEntry> read_roster(const std::string& file);

}  // namespace fedgrid::platforms

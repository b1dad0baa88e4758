#include "platforms/roster.hpp"

#include <libfccp/csv.h>

#include <filesystem>
#include <set>

#include "platforms/platform_error.hpp"

namespace fedgrid::platforms {

std::vector<RosterEntry> read_roster(const std::string& file) {
  if (std::error_code ec; !std::filesystem::exists(file, ec)) throw PlatformError(file, 0, "platform.roster", "roster file not found");
  std::vector<RosterEntry> rows;
  std::set<std::string> names;
  try {
    io::CSVReader<9, io::trim_chars<' ', '\t'>, io::double_quote_escape<',', '"'>, io::throw_on_overflow,
                  io::single_line_comment<'#'>>
        in(file);
    in.read_header(io::ignore_missing_column, "name", "tier", "speed_flops", "uplink_bps", "downlink_bps",
                   "latency_s", "profile_device", "speed_factor", "samples");
    for (const char* required : {"name", "tier"})
      if (!in.has_column(required)) throw PlatformError(file, 1, required, "required column is missing");
    std::string name, tier, cells[5], profile_device, samples;
    const char* columns[5] = {"speed_flops", "uplink_bps", "downlink_bps", "latency_s", "speed_factor"};
    while (in.read_row(name, tier, cells[0], cells[1], cells[2], cells[3], profile_device, cells[4], samples)) {
      const int line = int(in.get_file_line());
      RosterEntry e{name, tier, {}, {}, {}, {}, {}, {}, {}, line};
      if (!samples.empty()) {
        if (samples.size() > 15 || samples.find_first_not_of("0123456789") != std::string::npos || std::stoll(samples) < 1)
          throw PlatformError(file, line, "samples", "expected a positive whole number of samples, got '" + samples + "'");
        e.samples = std::stoll(samples);
      }
      if (!profile_device.empty()) e.profile_device = profile_device;
      if (name.empty()) throw PlatformError(file, line, "name", "empty hospital name");
      if (tier.empty()) throw PlatformError(file, line, "tier", "empty tier");
      if (!names.insert(name).second) throw PlatformError(file, line, "name", "duplicate hospital name '" + name + "'");
      std::optional<double>* slots[5] = {&e.speed_flops, &e.uplink_bps, &e.downlink_bps, &e.latency_s, &e.speed_factor};
      for (int c = 0; c < 5; ++c) {
        if (cells[c].empty()) continue;
        size_t used = 0;
        double v = 0;
        try {
          v = std::stod(cells[c], &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != cells[c].size()) throw PlatformError(file, line, columns[c], "expected a number, got '" + cells[c] + "'");
        if (v < 0 || (c != 3 && v == 0)) throw PlatformError(file, line, columns[c], "must be positive, got " + cells[c]);
        *slots[c] = v;
      }
      rows.push_back(e);
    }
  } catch (const io::error::base& e) {
    throw PlatformError(file, 0, "", e.what());
  }
  if (rows.empty()) throw PlatformError(file, 0, "platform.roster", "roster has no hospitals");
  return rows;
}

}  // namespace fedgrid::platforms

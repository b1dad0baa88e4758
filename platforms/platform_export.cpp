#include "platforms/platform_export.hpp"

#include <cstdio>

namespace fedgrid::platforms {
namespace {

std::string escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

// 17 significant digits: what SimGrid's strtod reads back is the very double written.
std::string exact(double value, const char* unit = "") {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text + std::string(unit);
}

void prop(std::string& out, const std::string& id, const std::string& value) {
  out += "      <prop id=\"" + id + "\" value=\"" + escaped(value) + "\"/>\n";
}

void machine(std::string& out, const MachineSpec& m) {
  const std::string name = escaped(m.name);
  out += "    <host id=\"" + name + "\" speed=\"" + exact(m.speed_flops, "f") + "\">\n";
  prop(out, "tier", m.tier);
  // As build_star_platform sets them: idle, one unit busy, all busy; off draws nothing.
  const std::string idle = std::to_string(m.power_idle_w), busy = std::to_string(m.power_max_w);
  prop(out, "wattage_per_state", idle + ":" + busy + ":" + busy);
  prop(out, "wattage_off", std::to_string(m.power_idle_w * 0.0));
  if (!m.profile_device.empty()) prop(out, "profile_device", m.profile_device);
  if (m.speed_factor != 1) prop(out, "speed_factor", exact(m.speed_factor));
  out += "    </host>\n";
  // SimGrid's bandwidths are bytes/s; the tier catalog's are bits/s.
  for (const auto& [suffix, bps] : {std::pair{"_up", m.uplink_bps}, std::pair{"_down", m.downlink_bps}})
    out += "    <link id=\"" + name + suffix + "\" bandwidth=\"" + exact(bps / 8.0, "Bps") + "\" latency=\"" +
           exact(m.latency_s, "s") + "\"/>\n";
  out += "    <host_link id=\"" + name + "\" up=\"" + name + "_up\" down=\"" + name + "_down\"/>\n";
}

}  // namespace

std::string star_platform_xml(const MachineSpec& server, const std::vector<MachineSpec>& hospitals,
                              const Backbone& backbone, const std::string& header) {
  std::string out = "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n";
  std::string comment = header;
  for (size_t at = comment.find("--"); at != std::string::npos; at = comment.find("--", at)) comment.replace(at, 2, "- ");
  out += "<!--\n" + comment + "-->\n<platform version=\"4.1\">\n  <zone id=\"federation\" routing=\"Cluster\">\n";
  machine(out, server);
  for (const auto& h : hospitals) machine(out, h);
  out += "    <backbone id=\"backbone\" bandwidth=\"" + exact(backbone.bandwidth_bps / 8.0, "Bps") + "\" latency=\"" +
         exact(backbone.latency_s, "s") + "\"/>\n";
  out += "  </zone>\n</platform>\n";
  return out;
}

}  // namespace fedgrid::platforms

#pragma once
// fedgrid's own reading of a SimGrid XML platform, before SimGrid loads it. SimGrid 3.32
// reports most mistakes as exceptions, but some values make it abort the process (a host
// with 0 cores, a pstate beyond its speeds, a malformed wattage_per_state): those must be
// input errors instead (exit code 2), so every value SimGrid would die on is checked here.
//
// The check accepts the part of SimGrid's platform format (version 4.1) that describes
// machines and networks: platform, zone (routing Full, Floyd, Dijkstra, DijkstraCache, nested
// as deep as wanted), cluster (FLAT with its backbone, TORUS, FAT_TREE, DRAGONFLY), host,
// link, router, route, zoneRoute, link_ctn and prop. Anything else (Vivaldi and Wifi zones,
// hand-built Cluster zones with host_link, trace files, config, actors) is refused by name
// rather than handed to SimGrid unchecked. A hierarchical cluster must name exactly one host
// per node of its topology (SimGrid dies when it has fewer and silently drops the extra).
#include <string>
#include <vector>

namespace fedgrid::platforms {

// Throws PlatformError naming the file, line and attribute (or element) at fault. Returns the
// names of the hosts the file declares (a cluster's and cabinet's too), in declaration order.
std::vector<std::string> check_platform_xml(const std::string& path);
// The same on text already read; `path` names it in errors.
std::vector<std::string> check_platform_xml_text(const std::string& text, const std::string& path);

}  // namespace fedgrid::platforms

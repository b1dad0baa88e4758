#pragma once
// The star platform fedgrid builds from a scenario (platforms/topology.hpp), written as SimGrid
// XML that `platform.xml` reads back into the same simulation: a zone with routing="Cluster"
// whose host_links and backbone give each host the routes of build_star_platform (up, backbone
// / backbone, down), every figure printed with 17 significant digits so that it parses back to
// the same double, tiers and power figures as host properties, hosts in hospital order.
#include <string>
#include <vector>

#include "platforms/topology.hpp"

namespace fedgrid::platforms {

// `header` is written as an XML comment at the top (how the file was made, how to run it).
std::string star_platform_xml(const MachineSpec& server, const std::vector<MachineSpec>& hospitals,
                              const Backbone& backbone, const std::string& header);

}  // namespace fedgrid::platforms

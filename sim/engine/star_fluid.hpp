#pragma once
// timing.network: fluid. The generated star's server links shared by many hospitals at once,
// computed as SimGrid's CM02 model shares them (same equations: a transfer waits its route's
// latency, then takes a weighted max-min share of the server link, weight 1 / route latency,
// capped by the hospital's own access link), but incrementally: a fair-share level and a
// virtual clock make each flow's arrival or end cost O(log n) instead of the O(n) re-solve of
// every flow that SimGrid's solver does. 100,000 distinct hospitals transfer in seconds instead
// of hours. Exact where SimGrid's CM02 is, up to rounding (bench/fluid_vs_cm02.sh measures it).
// Only the star's server transfers: the backbone must not bind (checked at set-up), and
// hospital-to-hospital transfers, faults and XML platforms are refused.
#include <cstdint>
#include <memory>

#include "platforms/topology.hpp"

namespace simgrid::s4u {
class Host;
}

namespace fedgrid {

class FluidLink;

class StarFluid {
 public:
  // Starts one daemon actor per server link on the server's host.
  StarFluid(const platforms::PlatformHosts& platform, double backbone_latency_s);
  ~StarFluid();
  // Blocks the calling actor until `bytes` have gone from hospital `hospital` to the server
  // (`to_server`) or back.
  void transfer(int hospital, bool to_server, int64_t bytes);

 private:
  const platforms::PlatformHosts& platform_;
  double backbone_latency_s_;
  std::unique_ptr<FluidLink> to_server_, from_server_;  // the server's downlink, its uplink
};

}  // namespace fedgrid

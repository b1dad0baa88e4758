#pragma once
// How a transfer crosses the simulated network, chosen once when the run is set up:
//   plain     SimGrid's own network model (timing.network: cm02 or the others SimGrid has);
//   fluid     the server's links shared by max-min fairness in closed form (StarFluid);
//   packet    every transfer a TCP connection simulated packet by packet (timing.network: ns3);
//   guarded   as plain, but a hospital's transfer under faults is cut with its work (FaultGuards).
// Every transfer is recorded as a "send" activity of the round it counts toward.
#include <cstdint>
#include <functional>
#include <memory>

#include "sim/engine/observer.hpp"

namespace fedgrid {

class Node;
class FaultGuards;
class ActorTags;
struct World;

class Transport {
 public:
  virtual ~Transport() = default;
  // Moves `bytes` from `from` to `to` in the calling actor, counted toward its round as the
  // transfer ends.
  virtual void send(Node& from, Node& to, int64_t bytes) = 0;
  // An input error for a route this transport cannot model, before anything moves.
  virtual void check_route(const Node& from, const Node& to) const { (void)from, (void)to; }
};

// The transport the scenario asks for: fluid or packet (timing.network: fluid or ns3; faults are
// refused with either), guarded (any faults.* set), else plain.
std::unique_ptr<Transport> make_transport(const World& world, FaultGuards& guards, const ActorTags& tags,
                                          RecordActivity record);

}  // namespace fedgrid

#pragma once
// The simulated clock, as the engine's parts read it (one definition, not one per file).
#include <simgrid/s4u/Engine.hpp>

namespace fedgrid {
inline double sim_now() { return simgrid::s4u::Engine::get_clock(); }
}  // namespace fedgrid

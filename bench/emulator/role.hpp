#pragma once
// One emulated host's process (started by the launcher with --role): it gets ready, reports
// so, waits for the common start, plays its part of the schedule and records what it measured.
#include "bench/emulator/options.hpp"

namespace fedgrid::emulator {

int run_role(const Options& o);

}  // namespace fedgrid::emulator

#pragma once
// The emulation's parent: one process per emulated host, each in its CPU-share cgroup, started
// together, watched, and cleaned up (no child or cgroup outlives it, whatever happens).
#include "bench/emulator/options.hpp"

namespace fedgrid::emulator {

// Returns the exit code; throws CgroupsUnavailable (exit 77) before starting anything.
int run_launcher(const Options& o, const char* argv0);

}  // namespace fedgrid::emulator

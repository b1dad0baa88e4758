// SimGrid's engine as a run starts it (run_setup.hpp).
#include "sim/engine/run_setup.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <malloc.h>

#include <fstream>

namespace fedgrid::run_setup {
namespace sg4 = simgrid::s4u;

void configure_engine(sg4::Engine& engine, const Scenario& s) {
  // fluid: what its model mirrors; ns3: SimGrid's network carries nothing, the cheapest model will do.
  if (s.timing.network != NetworkModel::Lv08) {
    // Exact arithmetic: a transfer takes latency + size / bandwidth, nothing else.
    engine.set_config("network/model:CM02");
    engine.set_config("network/latency-factor:1");
    engine.set_config("network/bandwidth-factor:1");
    engine.set_config("network/weight-S:0");
    engine.set_config("network/TCP-gamma:0");
    engine.set_config("network/crosstraffic:0");
  }
  // LV08's factors where the scenario changes them (never set otherwise: SimGrid's own apply).
  const Scenario::Timing::Lv08 lv08 = s.timing.lv08, simgrid_lv08;
  if (s.timing.network == NetworkModel::Lv08) {
    if (lv08.latency_factor != simgrid_lv08.latency_factor)
      engine.set_config("network/latency-factor:" + fmt::format("{}", lv08.latency_factor));
    if (lv08.bandwidth_factor != simgrid_lv08.bandwidth_factor)
      engine.set_config("network/bandwidth-factor:" + fmt::format("{}", lv08.bandwidth_factor));
    if (lv08.weight_s != simgrid_lv08.weight_s) engine.set_config("network/weight-S:" + fmt::format("{}", lv08.weight_s));
  }
  // SimGrid 3.32's lazy network update dropped the access-link constraint of some concurrent
  // flows that started together (three parallel downloads: two of them finished at backbone
  // speed; seen here, tests/test_timing.cpp). Full update recomputes every share each event.
  engine.set_config("network/optim:Full");
}

// SimGrid gives every actor a stack with a guard page below it: two memory mappings per actor,
// and Linux allows a process vm.max_map_count of them (65,530 by default), so somewhat over
// 30,000 hospital actors at once abort in SimGrid ("Failed to protect stack"). Past what the
// limit allows, stacks go without guard pages: one anonymous mapping each, which the kernel
// merges with its neighbours. glibc must then map every stack on its own: by default it maps
// at most 65,536 chunks and takes the rest from the heap, where calloc zeroes each 8 MiB stack
// again on reuse (100,000 hospitals: 20 GB and 3x the time, against 3.6 GB).
void fit_actor_stacks(sg4::Engine& engine, int hospitals) {
  long max_maps = 65530;
  std::ifstream("/proc/sys/vm/max_map_count") >> max_maps;
  // Hospital actors, the couriers and timers beside them, and the process's own mappings.
  if (2L * (int64_t(hospitals) + 1000) <= max_maps - 5000) return;
  engine.set_config("contexts/guard-size:0");
  mallopt(M_MMAP_THRESHOLD, 4 << 20);  // fixed (frees no longer raise it): 8 MiB stacks stay mapped
  mallopt(M_MMAP_MAX, 1 << 24);
}

// SimGrid's own log output follows fedgrid's --log-level: its info messages only from debug on
// (they describe SimGrid's configuration), its warnings and errors as fedgrid's.
std::string simgrid_threshold(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace:
    case spdlog::level::debug: return "info";
    case spdlog::level::info:
    case spdlog::level::warn: return "warning";
    case spdlog::level::err: return "error";
    default: return "critical";
  }
}

// SimGrid's engine, with fedgrid's log threshold and the user's --cfg arguments.
std::unique_ptr<sg4::Engine> start_engine(const Scenario& s, const std::vector<std::string>& simgrid_args) {
  std::vector<std::string> args{"fedgrid", "--log=root.thresh:" + simgrid_threshold(spdlog::get_level())};
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer cannot follow SimGrid's default (raw) context switches; thread contexts
  // are clean under it (notes in docs/developer/testing.md, "Sanitizers"). Only the sanitizer
  // build (./dev.sh sanitize) compiles this; simulated results do not depend on the context
  // factory.
  args.push_back("--cfg=contexts/factory:thread");
#endif
  for (const auto& a : simgrid_args) args.push_back(a);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = int(argv.size());
  auto engine = std::make_unique<sg4::Engine>(&argc, argv.data());
  configure_engine(*engine, s);
  return engine;
}

}  // namespace fedgrid::run_setup

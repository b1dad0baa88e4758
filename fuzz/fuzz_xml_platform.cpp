// SimGrid XML platform (platform.xml) -> fedgrid's check, then, for what the check lets
// through, the whole load_xml_platform as `fedgrid run` does it. SimGrid allows one engine per
// process and may abort on values the check missed, so that load runs in a forked child: a
// child that dies of a signal (SimGrid's abort) or of a sanitizer report is a finding here.
// Bad input must end as PlatformError, in the check or in the load.
#include <simgrid/plugins/energy.h>
#include <simgrid/s4u.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "fuzz/fuzz_files.hpp"
#include "platforms/platform_error.hpp"
#include "platforms/platform_xml_check.hpp"
#include "platforms/tier_catalog.hpp"
#include "platforms/topology.hpp"

namespace {

const fedgrid::platforms::TierCatalog& catalog() {
  static const auto tiers = fedgrid::platforms::load_tier_catalog(FEDGRID_SOURCE_DIR "/platforms/tiers.yaml");
  return tiers;
}

// In the child: what sim/engine/run.cpp does with an XML platform, up to the loaded hosts.
[[noreturn]] void load_in_child(const std::string& file) {
  char name[] = "fuzz_xml_platform", log[] = "--log=root.thresh:critical";
  char* argv[] = {name, log, nullptr};
  int argc = 2;
  sg_host_energy_plugin_init();
  simgrid::s4u::Engine engine(&argc, argv);
  try {
    fedgrid::platforms::load_xml_platform(file, {}, catalog());
  } catch (const fedgrid::platforms::PlatformError&) {
  }
  _exit(0);  // no atexit handlers: the parent owns the scratch folder
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  catalog();
  const std::string file = fedgrid::fuzz::write_scratch("platform.xml", data, size);
  try {
    fedgrid::platforms::check_platform_xml(file);
  } catch (const fedgrid::platforms::PlatformError&) {
    return 0;
  }
  const pid_t child = fork();
  if (child < 0) return 0;  // out of processes: skip this input rather than report it
  if (child == 0) load_in_child(file);
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
  }
  if (WIFSIGNALED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "fuzz_xml_platform: SimGrid's load of a platform fedgrid's check accepted %s %d\n",
                 WIFSIGNALED(status) ? "died of signal" : "exited with", WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    std::abort();
  }
  return 0;
}

// fedgrid-emulate: a small federation run for real on this machine (one process per host,
// cgroup CPU shares, LibTorch training, paced loopback TCP), so that fedgrid's simulated
// round times can be checked against measured ones. Usage: fedgrid-emulate --help.
#include <iostream>

#include "sim/cli/cpu_groups.hpp"
#include "bench/emulator/launcher.hpp"
#include "bench/emulator/options.hpp"
#include "bench/emulator/role.hpp"

int main(int argc, char** argv) {
  using namespace fedgrid::emulator;
  Options o;
  try {
    o = parse_options(argc, argv);
  } catch (const HelpRequested&) {
    std::cout << usage();
    return 0;
  } catch (const UsageError& e) {
    std::cerr << "fedgrid-emulate: error: " << e.what() << "\n" << usage();
    return 2;
  }
  try {
    return o.role.empty() ? run_launcher(o, argv[0]) : run_role(o);
  } catch (const fedgrid::CgroupsUnavailable& e) {
    std::cerr << "fedgrid-emulate: skipped: " << e.what() << "\n";
    return 77;
  } catch (const std::exception& e) {
    std::cerr << "fedgrid-emulate: " << (o.role.empty() ? "" : o.role + ": ") << "error: " << e.what() << "\n";
    return 1;
  }
}

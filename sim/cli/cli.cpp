#include "sim/cli/cli.hpp"

#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>

#include "algorithms/registry.hpp"
#include "platforms/platform_error.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/options.hpp"
#include "sim/core/input_error.hpp"

namespace fedgrid {

int cli_main(int argc, char** argv) {
  return reporting_errors([&] {
    algorithms::install_algorithm_keys();
    const Args a = parse_command_line(argc, argv);
    if (a.version) {
      fmt::print("fedgrid {}\n", FEDGRID_VERSION);
      return 0;
    }
    if (a.help || a.command.empty()) {
      fmt::print("{}", usage(a.command));
      return a.help ? 0 : 2;
    }
    spdlog::set_default_logger(spdlog::stderr_color_mt("fedgrid"));  // stdout stays for results
    spdlog::set_level(spdlog::level::from_str(a.log_level));
    spdlog::set_pattern("[%l] %v");
    return run_command(a);
  });
}

int reporting_errors(const std::function<int()>& command) {
  try {
    return command();
  } catch (const UsageError& e) {
    fmt::print(stderr, "fedgrid: {}\n{}", e.what(), usage(e.command));
    return 2;
  } catch (const InputError& e) {
    for (const auto& p : e.problems()) fmt::print(stderr, "fedgrid: error: {}\n", p.to_string());
    return 2;
  } catch (const platforms::PlatformError& e) {
    fmt::print(stderr, "fedgrid: error: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "fedgrid: internal error: {}\n", e.what());
    return 1;
  }
}

}  // namespace fedgrid

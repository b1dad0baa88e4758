#pragma once
// The command line's syntax: every command's options, declared once (Boost.Program_options),
// parsed into Args; the usage texts are generated from the same declarations.
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace fedgrid {

// A command line that does not parse: exit code 2, the message, then the usage of `command`
// (the overall usage when empty).
struct UsageError : std::runtime_error {
  UsageError(std::string command, const std::string& message)
      : std::runtime_error(message), command(std::move(command)) {}
  std::string command;
};

struct Args {
  std::string command;  // empty: none given
  bool help = false;    // --help: print the usage of `command` (or the overall one)
  bool version = false;
  std::vector<std::string> positional;  // the command's arguments (SCENARIO, RUN_DIR, ...)
  std::vector<std::string> overrides;   // --set, in order
  std::optional<std::string> out;       // --out
  std::string log_level = "info";       // --log-level, already checked
  int jobs = 1;                         // --jobs, at least 1
  bool retry_failed = false;            // sweep --retry-failed
  bool overwrite = false;               // run --overwrite: replace an earlier run's outputs
  // calibrate: the raw lists (sim/cli/calibrate.cpp parses them) and the thread count.
  std::optional<std::string> models, batch_sizes, device_name;
  int threads = 1;
  // calibrate under load: copies stepping at once, their CPU shares (raw list), the quota's
  // period, the measuring window (raw; calibrate.cpp checks it).
  int copies = 1;
  std::optional<std::string> cpu_shares, seconds;
  int cpu_period_us = 10000;
  // plan: the key and range, the target, a real key's tolerance (raw; plan.cpp checks them).
  std::string vary, target, tolerance = "0.001";
  std::optional<std::string> against;  // plan: the scenario a target 'FIGURE <= against' compares with
};

// Parses argv; throws UsageError naming what is wrong. Only the global options (--log-level,
// --help, --version) may come before the command; positional counts are checked unless --help.
Args parse_command_line(int argc, char** argv);

// `command`'s usage and options (empty command: the overall usage, every command listed).
std::string usage(const std::string& command);

}  // namespace fedgrid

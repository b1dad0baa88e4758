#include "sim/cli/cli.hpp"

#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <filesystem>

#include <unistd.h>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "models/model_spec.hpp"
#include "platforms/platform_error.hpp"
#include "platforms/tier_catalog.hpp"
#include "sim/cli/compare.hpp"
#include "sim/core/input_error.hpp"
#include "sim/engine/run.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/key_table.hpp"
#include "sim/sweep/sweep.hpp"

namespace fedgrid {
namespace {

constexpr const char* kUsage = R"(usage:
  fedgrid run [SCENARIO] [--set key.path=value ...] [--out DIR]   run (no SCENARIO: built-in quickstart)
  fedgrid validate SCENARIO [--set key.path=value ...]           check a scenario, run nothing
  fedgrid list algorithms|models|datasets|tiers|keys
  fedgrid compare RUN_DIR [RUN_DIR ...]                           summaries of finished runs side by side
  fedgrid sweep SWEEP.yaml [--jobs N] [--out DIR]                 run a grid of scenarios (under mpirun: over ranks)
options: --log-level trace|debug|info|warn|error|off (default: info)
exit codes: 0 success, 2 bad input (scenario, data, command line), 1 internal failure
            (sweep: 1 also when a cell failed; sweep.csv says which and why)
)";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Args {
  std::string command;
  std::vector<std::string> positional, overrides;
  std::optional<std::string> out;
  std::string log_level = "info";
  int jobs = 1;
};

int positive_int(const std::string& flag, const std::string& text) {
  size_t used = 0;
  int n = 0;
  try {
    n = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || n < 1) throw UsageError(flag + " needs a positive integer, got '" + text + "'");
  return n;
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const std::string& flag) {
      if (i + 1 >= argc) throw UsageError(flag + " needs a value");
      return std::string(argv[++i]);
    };
    if (arg == "--set") a.overrides.push_back(value(arg));
    else if (arg.rfind("--set=", 0) == 0) a.overrides.push_back(arg.substr(6));
    else if (arg == "--out") a.out = value(arg);
    else if (arg == "--log-level") a.log_level = value(arg);
    else if (arg == "--jobs") a.jobs = positive_int(arg, value(arg));
    else if (arg == "-h" || arg == "--help") a.command = "help";
    else if (arg == "--version") a.command = "version";
    else if (arg.rfind("--", 0) == 0) throw UsageError("unknown option " + arg);
    else if (a.command.empty()) a.command = arg;
    else a.positional.push_back(arg);
  }
  return a;
}

Scenario scenario_from(const Args& a, bool required) {
  std::vector<std::string> overrides = a.overrides;
  if (a.out) overrides.push_back("output.dir=" + *a.out);
  if (a.positional.size() > 1) throw UsageError("expected one scenario file, got " + std::to_string(a.positional.size()));
  if (a.positional.empty()) {
    if (required) throw UsageError("missing SCENARIO");
    return builtin_quickstart(overrides);
  }
  return load_scenario(a.positional[0], overrides);
}

int list(const Args& a) {
  if (a.positional.size() != 1) throw UsageError("list what? algorithms|models|datasets|tiers|keys");
  const std::string& what = a.positional[0];
  if (what == "algorithms") {
    for (const auto& alg : algorithms::registry()) fmt::print("{:<13} {}\n", alg.name, alg.description);
  } else if (what == "models") {
    for (const auto& arch : models::known_archs()) {
      // Each at the smallest usual input it takes: 1x28x28, or 1x32x32 (vgg11's five pools).
      const int side = arch == "vgg11" || arch == "resnet18" ? 32 : 28;
      auto c = models::model_cost({arch, 1, side, side, 10});
      fmt::print("{:<8} {:>9} params {:>8.2f} MFLOP/sample fwd (1x{}x{})  {}\n", arch, c.parameters,
                 c.forward_flops / 1e6, side, side, models::arch_description(arch));
    }
  } else if (what == "datasets") {
    fmt::print("fashion-mnist   Fashion-MNIST from Debian's dataset-fashion-mnist (60k train, 10k test, 28x28)\n");
    fmt::print("synthetic       class-conditional Gaussian images (data.synthetic.* sets its size)\n");
    fmt::print("idx:<dir>       any MNIST-style gzip IDX directory (train-*/t10k-* files)\n");
    fmt::print("npz:<file>      a MedMNIST .npz file (train/test images and labels; grey or colour)\n");
  } else if (what == "tiers") {
    auto catalog = platforms::load_tier_catalog(std::string(FEDGRID_SOURCE_DIR) + "/platforms/tiers.yaml");
    for (const auto& t : catalog.tiers)
      fmt::print("{:<7} {:>8.1f} GFLOP/s  up {:>7.1f} Mbit/s  down {:>7.1f} Mbit/s  {:>5.1f} ms  {}\n", t.name,
                 t.speed_flops / 1e9, t.uplink_bps / 1e6, t.downlink_bps / 1e6, t.latency_s * 1e3, t.description);
  } else if (what == "keys") {
    for (const auto& k : scenario_keys())
      fmt::print("{:<40} {:<8} {:<14} {}\n", k.path, type_name(k.type), k.default_value.value_or(""), k.description);
  } else {
    throw UsageError("cannot list '" + what + "': algorithms|models|datasets|tiers|keys");
  }
  return 0;
}

int sweep(const Args& a) {
  if (a.positional.size() != 1) throw UsageError("sweep what? give one sweep file");
  if (!a.overrides.empty()) throw UsageError("sweep takes no --set: put common overrides under `set:` in the sweep file");
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe");
  if (!launched_by_mpi()) return sweep_command(a.positional[0], a.out, a.jobs, self.string(), *single_rank());
  // Under mpirun: become the rank binary (same process, so the launcher keeps track of it).
  const std::string rank_binary = (self.parent_path() / "fedgrid-sweep-rank").string();
  std::vector<std::string> args{rank_binary, self.string(), a.positional[0], std::to_string(a.jobs)};
  if (a.out) args.push_back(*a.out);
  std::vector<char*> argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  execv(rank_binary.c_str(), argv.data());
  throw InputError(rank_binary, 0, "", "cannot start the MPI rank binary (was fedgrid built without libopenmpi-dev?)");
}

int dispatch(const Args& a) {
  if (a.command == "help" || a.command.empty()) {
    fmt::print("{}", kUsage);
    return a.command.empty() ? 2 : 0;
  }
  if (a.command == "version") {
    fmt::print("fedgrid {}\n", FEDGRID_VERSION);
    return 0;
  }
  if (a.command == "list") return list(a);
  if (a.command == "compare") {
    if (a.positional.empty()) throw UsageError("compare what? give one or more run directories");
    fmt::print("{}", compare_runs(a.positional));
    return 0;
  }
  if (a.command == "sweep") return sweep(a);
  if (a.command == "validate") {
    Scenario s = scenario_from(a, true);
    algorithms::check_algorithm(s);
    check_scenario(s);
    fmt::print("{}: ok\n", s.file);
    return 0;
  }
  if (a.command == "run") {
    Scenario s = scenario_from(a, false);
    RunOptions options;
    options.progress = true;
    RunSummary r = algorithms::run_algorithm(s, options);
    auto pct = [](const std::optional<double>& x) { return x ? fmt::format("{:.2f}%", *x * 100) : std::string("-"); };
    fmt::print("{}: {} rounds ({}), final accuracy {}, best {}, simulated {:.1f} s, {:.1f} MB, {:.0f} J -> {}\n",
               r.scenario, r.rounds, r.stop_reason, pct(r.final_accuracy), pct(r.best_accuracy), r.sim_time_s,
               double(r.bytes_total) / 1e6, r.energy_j, s.output.dir);
    return 0;
  }
  throw UsageError("unknown command '" + a.command + "'");
}

}  // namespace

int cli_main(int argc, char** argv) {
  try {
    algorithms::install_algorithm_keys();
    Args a = parse(argc, argv);
    auto level = spdlog::level::from_str(a.log_level);
    if (level == spdlog::level::off && a.log_level != "off") throw UsageError("unknown log level '" + a.log_level + "'");
    spdlog::set_default_logger(spdlog::stderr_color_mt("fedgrid"));  // stdout stays for results
    spdlog::set_level(level);
    spdlog::set_pattern("[%l] %v");
    return dispatch(a);
  } catch (const UsageError& e) {
    fmt::print(stderr, "fedgrid: {}\n{}", e.what(), kUsage);
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

#include "sim/cli/commands.hpp"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "models/model_spec.hpp"
#include "platforms/tier_catalog.hpp"
#include "sim/cli/calibrate.hpp"
#include "sim/cli/cli.hpp"
#include "sim/cli/compare.hpp"
#include "sim/cli/mpi_run.hpp"
#include "sim/core/input_error.hpp"
#include "sim/core/whole_number.hpp"
#include "sim/engine/metric_table.hpp"
#include "sim/engine/output_folder.hpp"
#include "sim/engine/run.hpp"
#include "sim/engine/state_file.hpp"
#include "sim/scenario/key_table.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/sweep/mpi_ranks.hpp"
#include "sim/sweep/plan.hpp"
#include "sim/sweep/sweep.hpp"

namespace fedgrid {
namespace {

// The scenario named by the (at most one, checked by the parser) positional argument.
Scenario scenario_from(const Args& a) {
  std::vector<std::string> overrides = a.overrides;
  if (a.out) overrides.push_back("output.dir=" + *a.out);
  if (a.positional.empty()) return builtin_quickstart(overrides);
  return load_scenario(a.positional[0], overrides);
}

// `fedgrid list metrics` (docs/reference/metrics.md is its output): every declared metric
// (sim/engine/metric_table.cpp), then each algorithm's own columns (AlgorithmInfo).
void list_metrics() {
  fmt::print("{:<18} {:<13} {:<11} {:<44} {:<19} {}\n", "metric", "file", "kind", "summary.json entries (reduction)",
             "enabled by", "meaning");
  for (const auto& m : metric_table()) {
    // A CSV column of reals is written with m.digits decimals (summary.json keeps every digit).
    const bool real = (m.kind == MetricKind::Real || m.kind == MetricKind::PerTier) && m.scope != Scope::Summary;
    std::string entries;
    for (const auto& e : m.summary)
      entries += fmt::format("{}{} ({})", entries.empty() ? "" : ", ", e.key, reduction_name(e.reduce));
    fmt::print("{:<18} {:<13} {:<11} {:<44} {:<19} {}\n", m.kind == MetricKind::PerTier ? m.name + "<tier>" : m.name,
               output_file(m.scope), real ? fmt::format("{}({})", kind_name(m.kind), m.digits) : kind_name(m.kind),
               entries, m.gate.key, m.doc);
  }
  fmt::print("\n{:<18} {:<13} {:<18} {}\n", "algorithm", "file", "own column", "meaning");
  for (const auto& alg : algorithms::registry()) {
    for (const auto& c : alg.round_columns) fmt::print("{:<18} {:<13} {:<18} {}\n", alg.name, "rounds.csv", c.name, c.doc);
    for (const auto& c : alg.hospital_columns)
      fmt::print("{:<18} {:<13} {:<18} {}\n", alg.name, "hospitals.csv", c.name, c.doc);
  }
}

int list(const Args& a) {
  const std::string& what = a.positional.at(0);
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
  } else if (what == "metrics") {
    list_metrics();
  } else {
    throw UsageError("list", "cannot list '" + what + "': algorithms|models|datasets|tiers|keys|metrics");
  }
  return 0;
}

int sweep(const Args& a) {
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe");
  const SweepRequest request{a.out, a.jobs, a.overrides, a.retry_failed};
  if (!launched_by_mpi()) return sweep_command(a.positional.at(0), request, self.string(), *single_rank());
  // Under mpirun: this process is one rank, through fedgrid's MPI module (sim/mpi/mpi_world.hpp).
  std::unique_ptr<SweepRanks> ranks;
  try {
    ranks = mpi_ranks();
  } catch (const std::runtime_error& e) {
    throw InputError(a.positional.at(0), 0, "", e.what());
  }
  return sweep_command(a.positional.at(0), request, self.string(), *ranks);
}

int plan(const Args& a) {
  if (a.vary.empty()) throw UsageError("plan", "plan needs --vary KEY=LO..HI");
  if (a.target.empty()) throw UsageError("plan", "plan needs --target 'FIGURE <= X' (or >=)");
  PlanRequest request{a.positional.at(0), a.vary, a.target, a.overrides, a.out, a.against, a.jobs};
  request.tolerance = whole_number(a.tolerance).value_or(0);
  if (!(request.tolerance > 0 && request.tolerance < 1))
    throw UsageError("plan", "--tolerance takes a number in (0, 1), got '" + a.tolerance + "'");
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe");
  std::string out;
  const int code = plan_command(request, self.string(), out);
  // The figure: analysis/plot_plan.py, where the sources and Debian's matplotlib are at hand.
  const std::string script = std::string(FEDGRID_SOURCE_DIR) + "/analysis/plot_plan.py";
  if (code == 0 && out.find('\'') == std::string::npos && std::filesystem::exists(script) &&
      std::filesystem::exists("/usr/bin/python3")) {
    const std::string command = "/usr/bin/python3 '" + script + "' '" + out + "' >/dev/null";
    if (std::system(command.c_str()) != 0)
      fmt::print(stderr, "fedgrid: warning: the plan's figure was not drawn ({} {})\n", script, out);
  }
  return code;
}

int validate_one(const Args& a) {
  Scenario s = scenario_from(a);
  algorithms::validate_algorithm(s);  // loads what run loads, so that what run refuses, validate refuses
  fmt::print("{}: ok\n", s.file);
  return 0;
}

// Several scenarios: each in a child process, since validating starts a SimGrid engine and
// SimGrid starts once per process. The children are forked from this process before it has
// loaded or computed anything, so none pays LibTorch's start again (about 1.3 CPU s a process).
// One at a time, in the order given, so the output reads in that order: each file's errors, then
// `FILE: ok` or `FILE: refused (exit N)`. The exit code is the
// worst: 1 (an internal failure) over 2 (bad input) over 0.
int validate(const Args& a) {
  if (a.positional.size() == 1) return validate_one(a);
  int worst = 0;
  for (const auto& file : a.positional) {
    std::fflush(nullptr);
    const pid_t child = fork();
    if (child < 0) throw std::runtime_error("cannot start a process to validate " + file);
    if (child == 0) {
      Args one = a;
      one.positional = {file};
      const int code = reporting_errors([&] { return validate_one(one); });
      std::fflush(nullptr);
      std::_Exit(code);  // not exit(): the parent's static objects are the parent's to destroy
    }
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    int code = 1;
    if (WIFEXITED(status)) code = WEXITSTATUS(status);
    else fmt::print(stderr, "fedgrid: internal error: validating {} ended by signal {}\n", file, WTERMSIG(status));
    // The error above may name another file (a tier catalog, a roster): say whose it was.
    if (code != 0) fmt::print(stderr, "{}: refused (exit {})\n", file, code);
    worst = (worst == 1 || code == 1) ? 1 : std::max(worst, code);
  }
  return worst;
}

int platform(const Args& a) {
  const Scenario s = scenario_from(a);
  const std::string xml = export_platform(s);
  if (!a.out) {
    fmt::print("{}", xml);
    return 0;
  }
  std::error_code ec;
  if (const auto dir = std::filesystem::path(*a.out).parent_path(); !dir.empty()) std::filesystem::create_directories(dir, ec);
  write_file_atomically(*a.out, xml);
  fmt::print("{}: platform written to {}\n", s.file, *a.out);
  return 0;
}

std::string text_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream all;
  all << in.rdbuf();
  return all.str();
}

// RUN_DIR/run.json: how the run was started, so `fedgrid resume` starts it the same way. The
// scenario's text is kept to refuse a resume after the file changed.
void write_run_record(const Args& a, const Scenario& s) {
  std::vector<std::string> overrides = a.overrides;
  if (a.out) overrides.push_back("output.dir=" + *a.out);
  const std::string path = a.positional.empty() ? "" : std::filesystem::absolute(a.positional[0]).string();
  const nlohmann::json record{
      {"scenario", path}, {"scenario_text", path.empty() ? "" : text_of(path)}, {"overrides", overrides}};
  std::filesystem::create_directories(s.output.dir);
  write_file_atomically(s.output.dir + "/run.json", record.dump(2) + "\n");
}

int run_and_report(Scenario s, RunOptions options) {
  // training.executor: mpi: this process is one rank, and rank 0 alone reports.
  std::unique_ptr<MpiRun> mpi;
  if (s.training.executor == ExecutorMode::Mpi) mpi = std::make_unique<MpiRun>(s, options);
  const bool reports = !mpi || mpi->leads();
  options.progress = reports;
  auto body = [&] {
    RunSummary r = algorithms::run_algorithm(s, options);
    auto pct = [](const std::optional<double>& x) { return x ? fmt::format("{:.2f}%", *x * 100) : std::string("-"); };
    if (reports)
      fmt::print("{}: {} rounds ({}), final accuracy {}, best {}, simulated {:.1f} s, {:.1f} MB, {:.0f} J -> {}\n",
                 r.scenario, r.rounds, r.stop_reason, pct(r.real("final_accuracy")), pct(r.real("best_accuracy")),
                 r.sim_time_s, double(r.integer("bytes_total").value_or(0)) / 1e6, r.energy_j, s.output.dir);
    return 0;
  };
  return mpi ? mpi->run(body) : body();
}

int run(const Args& a) {
  Scenario s = scenario_from(a);
  const bool writes_folder = !launched_as_follower_rank(s);
  if (writes_folder) claim_output_folder(s.output.dir, a.overwrite);
  if (s.output.checkpoint_every > 0) {
    algorithms::check_algorithm(s);
    if (writes_folder) write_run_record(a, s);
  }
  try {
    return run_and_report(s, {});
  } catch (const InputError&) {
    // Every refusal is taken at set-up (validate == run): nothing ran that resume could continue.
    std::error_code ec;
    if (writes_folder && s.output.checkpoint_every > 0) std::filesystem::remove(s.output.dir + "/run.json", ec);
    throw;
  }
}

int resume(const Args& a) {
  const std::string dir = a.positional.at(0), record_path = dir + "/run.json";
  if (!std::filesystem::exists(record_path))
    throw InputError(record_path, 0, "",
                     "no such file: RUN_DIR must be the output folder of a run with output.checkpoint_every");
  nlohmann::json record;
  try {
    record = nlohmann::json::parse(text_of(record_path));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(record_path, 0, "", std::string("not a run record: ") + e.what());
  }
  auto field = [&](const char* key) -> const nlohmann::json& {
    if (!record.contains(key)) throw InputError(record_path, 0, key, "missing");
    return record.at(key);
  };
  const std::string path = field("scenario").get<std::string>();
  if (!path.empty() && text_of(path) != field("scenario_text").get<std::string>())
    throw InputError(path, 0, "",
                     "changed since the run in " + dir + " started (" + record_path + " keeps its text): cannot resume");
  auto overrides = field("overrides").get<std::vector<std::string>>();
  overrides.push_back("output.dir=" + dir);
  const Scenario s = path.empty() ? builtin_quickstart(overrides) : load_scenario(path, overrides);
  RunOptions options;
  // Killed before its first checkpoint: the run starts again from the beginning.
  if (std::filesystem::exists(dir + "/checkpoint.bin")) options.resume_from = dir + "/checkpoint.bin";
  return run_and_report(s, options);
}

}  // namespace

int run_command(const Args& a) {
  if (a.command == "run") return run(a);
  if (a.command == "resume") return resume(a);
  if (a.command == "validate") return validate(a);
  if (a.command == "platform") return platform(a);
  if (a.command == "list") return list(a);
  if (a.command == "compare") {
    fmt::print("{}", compare_runs(a.positional));
    return 0;
  }
  if (a.command == "sweep") return sweep(a);
  if (a.command == "plan") return plan(a);
  if (a.command == "calibrate") return calibrate(a);
  throw std::logic_error("no action for command '" + a.command + "'");
}

}  // namespace fedgrid

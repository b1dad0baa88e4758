#include "sim/sweep/sweep_cell.hpp"

#include <sys/wait.h>

#include <boost/process/args.hpp>
#include <boost/process/child.hpp>
#include <boost/process/exe.hpp>
#include <boost/process/io.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace fedgrid {
namespace {

namespace fs = std::filesystem;

std::string cell_dir(const SweepPlan& plan, const SweepCell& cell) { return plan.out + "/" + cell.dir; }

std::string read_text(const std::string& file) {
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The run's own error lines ("fedgrid: ..."), else the last line it wrote.
std::string error_from_log(const std::string& log) {
  std::stringstream ss(read_text(log));
  std::string errors, last;
  for (std::string line; std::getline(ss, line);) {
    if (line.empty()) continue;
    last = line;
    for (const char* prefix : {"fedgrid: error: ", "fedgrid: internal error: "})
      if (line.rfind(prefix, 0) == 0) errors += (errors.empty() ? "" : "; ") + line.substr(std::strlen(prefix));
  }
  return errors.empty() ? last : errors;
}

nlohmann::json identity(const SweepPlan& plan, const SweepCell& cell) {
  return {{"base", plan.base}, {"overrides", cell.overrides}};
}

}  // namespace

struct CellProcess::Child {
  boost::process::child process;
};

CellProcess::CellProcess(std::unique_ptr<Child> child) : child_(std::move(child)) {}
CellProcess::CellProcess(CellProcess&&) noexcept = default;
CellProcess& CellProcess::operator=(CellProcess&&) noexcept = default;
CellProcess::~CellProcess() = default;  // boost::process::child kills a process still running

std::optional<int> CellProcess::poll() {
  if (child_->process.running()) return std::nullopt;
  return child_->process.native_exit_code();
}

CellProcess start_cell(const SweepPlan& plan, const SweepCell& cell, const std::string& executable) {
  const std::string dir = cell_dir(plan, cell);
  fs::create_directories(dir);
  // An interrupted earlier attempt must not pass for a finished one.
  fs::remove(dir + "/cell.json");
  fs::remove(dir + "/summary.json");
  // Boost.Process opens the log without truncating it: an earlier attempt's longer log would
  // show through.
  const std::string log = dir + "/run.log";
  fs::remove(log);

  std::vector<std::string> args{"run", plan.base};
  for (const auto& o : cell.overrides) args.insert(args.end(), {"--set", o});
  // The sweep owns its cells' folders: a cell it starts again (interrupted, or failed and
  // retried) replaces that cell's earlier outputs.
  args.insert(args.end(), {"--out", dir, "--overwrite", "--log-level", "warn"});
  namespace bp = boost::process;
  try {
    return CellProcess(std::make_unique<CellProcess::Child>(
        CellProcess::Child{bp::child(bp::exe = executable, bp::args = args, (bp::std_out & bp::std_err) > log)}));
  } catch (const bp::process_error& e) {
    throw std::runtime_error("cannot start " + executable + ": " + e.code().message());
  }
}

CellOutcome finish_cell(const SweepPlan& plan, const SweepCell& cell, int wait_status) {
  const std::string dir = cell_dir(plan, cell);
  CellOutcome o;
  o.cell = cell.index;
  const bool exited = WIFEXITED(wait_status);
  if (exited && WEXITSTATUS(wait_status) == 0 && fs::exists(dir + "/summary.json")) {
    o.ok = true;
    o.summary = read_text(dir + "/summary.json");
  } else {
    const std::string how = exited ? "exit code " + std::to_string(WEXITSTATUS(wait_status))
                                   : "killed by signal " + std::to_string(WTERMSIG(wait_status));
    const std::string said = error_from_log(dir + "/run.log");
    o.error = said.empty() ? how : said + " (" + how + ")";
  }
  nlohmann::json record = identity(plan, cell);
  record["status"] = o.ok ? "ok" : "failed";
  record["error"] = o.error;
  std::ofstream(dir + "/cell.json") << record.dump(2) << "\n";
  return o;
}

std::optional<CellOutcome> earlier_outcome(const SweepPlan& plan, const SweepCell& cell, bool retry_failed) {
  const std::string dir = cell_dir(plan, cell);
  std::ifstream in(dir + "/cell.json");
  if (!in) return std::nullopt;
  CellOutcome o;
  o.cell = cell.index;
  o.reused = true;
  try {
    const auto record = nlohmann::json::parse(in);
    const auto expected = identity(plan, cell);
    if (record["base"] != expected["base"] || record["overrides"] != expected["overrides"]) return std::nullopt;
    const std::string status = record.value("status", "");
    if (status == "failed" && !retry_failed) {
      o.error = record.value("error", "");
      return o;
    }
    if (status != "ok" || !fs::exists(dir + "/summary.json")) return std::nullopt;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // a damaged record: run the cell again
  }
  o.ok = true;
  o.summary = read_text(dir + "/summary.json");
  return o;
}

std::string to_json(const CellOutcome& o) {
  return nlohmann::json{{"cell", o.cell}, {"ok", o.ok}, {"error", o.error}, {"summary", o.summary}}.dump();
}

CellOutcome outcome_from_json(const std::string& text) {
  const auto j = nlohmann::json::parse(text);
  CellOutcome o;
  o.cell = j.at("cell").get<size_t>();
  o.ok = j.at("ok").get<bool>();
  o.error = j.at("error").get<std::string>();
  o.summary = j.at("summary").get<std::string>();
  return o;
}

}  // namespace fedgrid

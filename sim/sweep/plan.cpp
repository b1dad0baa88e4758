#include "sim/sweep/plan.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "sim/core/input_error.hpp"
#include "sim/scenario/key_table.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/sweep/plan_search.hpp"
#include "sim/sweep/sweep_cell.hpp"

namespace fedgrid {
namespace {

namespace fs = std::filesystem;

// rounds.csv as columns of cells.
std::map<std::string, std::vector<std::string>> read_columns(const std::string& file) {
  std::ifstream in(file);
  std::map<std::string, std::vector<std::string>> columns;
  std::vector<std::string> header;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');) cells.push_back(c);
    if (!line.empty() && line.back() == ',') cells.push_back("");
    if (header.empty()) {
      header = cells;
      continue;
    }
    for (size_t i = 0; i < header.size() && i < cells.size(); ++i) columns[header[i]].push_back(cells[i]);
  }
  return columns;
}

std::vector<double> numbers(const std::vector<std::string>& cells) {
  std::vector<double> out;
  for (const auto& c : cells)
    if (!c.empty()) out.push_back(std::stod(c));
  return out;
}

// mean(COLUMN) or max(COLUMN) of a column's filled cells; none when it has none.
std::optional<double> reduce(const std::vector<std::string>& cells, bool mean) {
  const auto values = numbers(cells);
  if (values.empty()) return std::nullopt;
  double sum = 0, most = values.front();
  for (double v : values) sum += v, most = std::max(most, v);
  return mean ? sum / double(values.size()) : most;
}

const char* const kPhases[] = {"cp_downlink_s", "cp_compute_s", "cp_uplink_s",
                               "cp_peer_s",     "cp_server_s",  "cp_idle_s"};

std::string number_text(double v, bool integer) { return integer ? fmt::format("{}", int64_t(v)) : fmt::format("{}", v); }

struct Planner {
  explicit Planner(const PlanRequest& r) : request(r) {}
  const PlanRequest& request;
  std::string key;  // as --set takes it
  bool integer = false;
  std::string out, base, executable;
  SweepPlan cells_plan;                   // the points run as a sweep's cells do
  std::optional<SweepPlan> against_plan;  // --against: the other scenario's runs of the same points
  size_t points_run = 0, runs = 0;

  std::string figure;  // the target's
  std::map<double, std::string> folder_of, against_folder_of;
  std::map<double, double> own_figure, against_figure;  // with --against: each side's figure

  // Runs the points (each once, or with --against twice: this scenario and the other), `jobs`
  // runs at a time, in order.
  std::vector<PlanPoint> evaluate(const std::vector<double>& values) {
    struct Run {
      const SweepPlan* plan;
      SweepCell cell;
      std::string folder;
    };
    std::vector<Run> queue;
    for (double v : values) {
      SweepCell c;
      c.index = points_run++;
      c.values = {number_text(v, integer)};
      c.dir = fmt::format("{:03d}_{}", c.index, c.values[0]);
      c.overrides = request.overrides;
      c.overrides.push_back(key + "=" + c.values[0]);
      folder_of[v] = cells_plan.out + "/" + c.dir;
      queue.push_back({&cells_plan, c, folder_of[v]});
      if (against_plan) {
        against_folder_of[v] = against_plan->out + "/" + c.dir;
        queue.push_back({&*against_plan, c, against_folder_of[v]});
      }
    }
    runs += queue.size();
    std::vector<std::optional<CellProcess>> processes(queue.size());
    size_t started = 0;
    auto start_next = [&] {
      if (started < queue.size())
        processes[started].emplace(start_cell(*queue[started].plan, queue[started].cell, executable)), ++started;
    };
    for (int j = 0; j < request.jobs; ++j) start_next();
    // Run i's figure, or why it has none.
    auto figure_of = [&](size_t i, std::string& error) -> std::optional<double> {
      std::optional<int> status;
      while (!(status = processes[i]->poll())) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      start_next();
      const CellOutcome o = finish_cell(*queue[i].plan, queue[i].cell, *status);
      if (!o.ok) return error = o.error, std::nullopt;
      auto f = run_figure(queue[i].folder, figure);
      if (!f) error = "the run has no figure '" + figure + "'";
      return f;
    };
    std::vector<PlanPoint> points;
    const size_t per_point = against_plan ? 2 : 1;
    for (size_t v = 0; v < values.size(); ++v) {
      PlanPoint p;
      p.value = values[v];
      const auto mine = figure_of(v * per_point, p.error);
      std::optional<double> theirs;
      if (against_plan) {
        std::string error;
        theirs = figure_of(v * per_point + 1, error);
        if (!theirs && p.error.empty()) p.error = request.against.value() + ": " + error;
      }
      if (mine) own_figure[p.value] = *mine;
      if (theirs) against_figure[p.value] = *theirs;
      if (mine && (!against_plan || theirs)) p.figure = against_plan ? *mine - *theirs : *mine;
      fmt::print(stderr, "[{}] {}={}: {}\n", queue[v * per_point].cell.index + 1, key, queue[v * per_point].cell.values[0],
                 !p.figure       ? "FAILED: " + p.error
                 : against_plan  ? fmt::format("{} against {}", *mine, *theirs)
                                 : fmt::format("{}", *p.figure));
      points.push_back(p);
    }
    return points;
  }
};

void write_outputs(const Planner& pl, const PlanTarget& target, const PlanRange& range, const PlanResult& r) {
  std::ofstream csv(pl.out + "/plan.csv");
  // With --against: this scenario's figure, the other's, and the verdict on their difference.
  const bool against = pl.against_plan.has_value();
  csv << (against ? "value,figure,against_figure,holds" : "value,figure,holds");
  for (const char* phase : kPhases) csv << "," << phase;
  csv << ",bottleneck,error\n";
  nlohmann::json points = nlohmann::json::array();
  for (const PlanPoint& p : r.points) {
    const std::string folder = pl.folder_of.at(p.value);
    csv << number_text(p.value, range.integer) << ",";
    auto cell = [&](const std::map<double, double>& of) { return of.count(p.value) ? fmt::format("{}", of.at(p.value)) : ""; };
    if (against) csv << cell(pl.own_figure) << "," << cell(pl.against_figure);
    else if (p.figure) csv << fmt::format("{}", *p.figure);
    csv << "," << (p.figure ? (target.holds(*p.figure) ? "yes" : "no") : "");
    // The rounds' mean split along the critical path (output.critical_path), and its largest phase.
    std::string bottleneck;
    double largest = -1;
    auto columns = p.figure ? read_columns(folder + "/rounds.csv") : std::map<std::string, std::vector<std::string>>{};
    for (const char* phase : kPhases) {
      const auto v = columns.count(phase) ? reduce(columns[phase], true) : std::nullopt;
      csv << "," << (v ? fmt::format("{:.9f}", *v) : "");
      if (v && *v > largest) largest = *v, bottleneck = std::string(phase).substr(3, std::string(phase).size() - 5);
    }
    csv << "," << bottleneck << "," << (p.error.empty() ? "" : "\"" + p.error + "\"") << "\n";
    nlohmann::json point{{"value", p.value}, {"figure", p.figure ? nlohmann::json(*p.figure) : nlohmann::json()},
                         {"bottleneck", bottleneck}, {"folder", fs::relative(folder, pl.out).string()}};
    if (against) {  // "figure" is the difference; each side's own
      point["figure"] = pl.own_figure.count(p.value) ? nlohmann::json(pl.own_figure.at(p.value)) : nlohmann::json();
      point["against_figure"] =
          pl.against_figure.count(p.value) ? nlohmann::json(pl.against_figure.at(p.value)) : nlohmann::json();
      point["difference"] = p.figure ? nlohmann::json(*p.figure) : nlohmann::json();
    }
    points.push_back(point);
  }
  nlohmann::json j{{"scenario", pl.base},
                   {"key", pl.key},
                   {"range", {range.lo, range.hi}},
                   {"integer", range.integer},
                   {"tolerance", range.integer ? nlohmann::json() : nlohmann::json(range.tolerance)},
                   {"target", target.text()},
                   {"verdict", r.verdict},
                   {"direction", r.largest ? "largest" : "smallest"},
                   {"answer", r.answer && r.monotone ? nlohmann::json(*r.answer) : nlohmann::json()},
                   {"bracket", {r.good, r.bad}},
                   {"monotone", r.monotone},
                   {"violations", r.violations},
                   {"runs", pl.runs},
                   {"points", points}};
  if (against) j["against"] = *pl.request.against;
  std::ofstream(pl.out + "/plan.json") << j.dump(2) << "\n";
}

}  // namespace

std::optional<double> run_figure(const std::string& dir, const std::string& figure) {
  static const std::regex of_column(R"((mean|max)\((\w+)\))");
  std::smatch m;
  if (figure == "round_time_s" || figure == "max_round_time_s") {
    const auto times = numbers(read_columns(dir + "/rounds.csv")["sim_time_s"]);
    if (times.empty()) return std::nullopt;
    double sum = 0, most = 0, before = 0;
    for (double t : times) sum += t - before, most = std::max(most, t - before), before = t;
    return figure == "round_time_s" ? sum / double(times.size()) : most;
  }
  if (std::regex_match(figure, m, of_column)) {
    auto columns = read_columns(dir + "/rounds.csv");
    return columns.count(m[2]) ? reduce(columns[m[2]], m[1] == "mean") : std::nullopt;
  }
  std::ifstream in(dir + "/summary.json");
  if (!in) return std::nullopt;
  nlohmann::json node = nlohmann::json::parse(in, nullptr, false);
  std::stringstream path(figure);
  for (std::string part; std::getline(path, part, '.');) {
    if (!node.is_object() || !node.contains(part)) return std::nullopt;
    node = node[part];
  }
  return node.is_number() ? std::optional(node.get<double>()) : std::nullopt;
}

int plan_command(const PlanRequest& request, const std::string& fedgrid_executable, std::string& folder) {
  auto fail = [](const std::string& where, const std::string& key, const std::string& message) {
    fmt::print(stderr, "fedgrid: error: {}\n", InputProblem{where, 0, key, message}.to_string());
    return 2;
  };
  const size_t eq = request.vary.find('=');
  if (eq == std::string::npos || eq == 0) return fail("--vary", "", "expected KEY=LO..HI, got '" + request.vary + "'");
  Planner pl(request);
  pl.key = request.vary.substr(0, eq);
  // The key table's form: list items as [] ("platform.hospitals[0].count" or ".0.").
  const std::string declared =
      std::regex_replace(std::regex_replace(pl.key, std::regex(R"(\[\d+\])"), "[]"), std::regex(R"(\.\d+(?=\.|$))"), "[]");
  const KeyDecl* decl = find_key(declared);
  if (!decl) {
    const std::string hint = closest_key(declared);
    return fail("--vary", pl.key, "not a scenario key" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
  }
  if (decl->type != KeyType::Int && decl->type != KeyType::Float)
    return fail("--vary", pl.key, "not a number key (" + type_name(decl->type) + "): plan varies numbers");
  PlanRange range;
  PlanTarget target;
  try {
    range = parse_range(request.vary.substr(eq + 1), decl->type == KeyType::Int);
  } catch (const std::invalid_argument& e) {
    return fail("--vary", pl.key, e.what());
  }
  range.tolerance = request.tolerance;
  try {
    target = parse_target(request.target);
  } catch (const std::invalid_argument& e) {
    return fail("--target", "", e.what());
  }
  if (target.against != request.against.has_value())
    return target.against ? fail("--target", "", "'" + target.text() + "' compares with another scenario: name it with --against")
                          : fail("--against", "", "the target must compare with it: 'FIGURE <= against' (or >=)");
  static const std::regex known(R"((max_)?round_time_s|(mean|max)\(\w+\)|[A-Za-z_][\w.]*)");
  if (!std::regex_match(target.figure, known))
    return fail("--target", "", "'" + target.figure + "' is not a figure (round_time_s, max_round_time_s, "
                                "mean(COLUMN), max(COLUMN) of rounds.csv, or a summary.json key)");
  Scenario scenario;
  try {  // both ends must load: the key, its values and the rest of the scenario
    for (double v : {range.lo, range.hi}) {
      auto overrides = request.overrides;
      overrides.push_back(pl.key + "=" + number_text(v, range.integer));
      if (request.against) load_scenario(*request.against, overrides);
      scenario = load_scenario(request.scenario, overrides);
    }
  } catch (const InputError& e) {
    for (const auto& p : e.problems()) fmt::print(stderr, "fedgrid: error: {}\n", p.to_string());
    return 2;
  }
  pl.base = request.scenario;
  pl.figure = target.figure;
  pl.integer = range.integer;
  pl.out = folder = request.out.value_or("results/plans/" + scenario.name);
  pl.executable = fedgrid_executable;
  pl.cells_plan.base = request.scenario;
  pl.cells_plan.out = pl.out + "/points";
  fs::create_directories(pl.cells_plan.out);
  if (request.against) {
    pl.against_plan.emplace();
    pl.against_plan->base = *request.against;
    pl.against_plan->out = pl.out + "/against";
    fs::create_directories(pl.against_plan->out);
  }
  const PlanResult r = plan_search(range, target, request.jobs, [&](const std::vector<double>& v) { return pl.evaluate(v); });
  // A figure no run has is the user's typo, not a failed run.
  if (r.verdict == "failed" && !r.points.empty() && r.points.front().error.rfind("the run has no figure", 0) == 0)
    return fail("--target", "", "'" + target.figure + "': the runs have no such figure (" + pl.out + "/points/" +
                                    "000_*/ holds the first run's rounds.csv and summary.json)");
  write_outputs(pl, target, range, r);
  if (r.verdict == "failed") {
    fmt::print("{}: a run failed; {} runs -> {}/plan.csv\n", scenario.name, pl.runs, pl.out);
    return 1;
  }
  std::string said;
  if (r.verdict == "holds_everywhere") said = fmt::format("{} holds over the whole range", target.text());
  else if (r.verdict == "holds_nowhere") said = fmt::format("{} holds nowhere in the range", target.text());
  else if (!r.monotone)
    said = fmt::format("not monotone ({}): the boundary lies in [{}, {}]", fmt::join(r.violations, "; "),
                       number_text(std::min(r.good, r.bad), range.integer),
                       number_text(std::max(r.good, r.bad), range.integer));
  else
    said = fmt::format("the {} {} for which {}: {} ({} fails)", r.largest ? "largest" : "smallest", pl.key,
                       target.text(), number_text(*r.answer, range.integer), number_text(r.bad, range.integer));
  if (request.against) said += " (against " + *request.against + ")";
  fmt::print("{}: {}; {} runs -> {}/plan.json\n", scenario.name, said, pl.runs, pl.out);
  return 0;
}

}  // namespace fedgrid

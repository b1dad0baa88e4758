#include "sim/cli/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "sim/core/input_error.hpp"

namespace fedgrid {
namespace {

struct Row {
  const char* label;
  const char* key;
  enum { Text, Percent, Seconds, Megabytes, Number } format;
};

// Summary figures in the order a reader compares them: what ran, how well, how fast, at what cost.
const Row kRows[] = {
    {"scenario", "scenario", Row::Text},
    {"algorithm", "algorithm", Row::Text},
    {"seed", "seed", Row::Number},
    {"rounds", "rounds", Row::Number},
    {"stop reason", "stop_reason", Row::Text},
    {"final accuracy", "final_accuracy", Row::Percent},
    {"best accuracy", "best_accuracy", Row::Percent},
    {"final AUC", "final_auc", Row::Percent},
    {"local test AUC", "final_local_test_auc", Row::Percent},
    {"global test AUC", "final_global_test_auc", Row::Percent},
    {"tier gap", "final_tier_gap", Row::Percent},
    {"simulated time", "sim_time_s", Row::Seconds},
    {"time to target", "time_to_target_s", Row::Seconds},
    {"bytes total", "bytes_total", Row::Megabytes},
    {"  hospital -> server", "bytes_up", Row::Megabytes},
    {"  server -> hospital", "bytes_down", Row::Megabytes},
    {"  hospital -> hospital", "bytes_peer", Row::Megabytes},
    {"messages", "messages", Row::Number},
    {"energy (J)", "energy_j", Row::Number},
};

std::string cell(const nlohmann::json& summary, const Row& row) {
  if (!summary.contains(row.key) || summary[row.key].is_null()) return "-";
  const auto& v = summary[row.key];
  switch (row.format) {
    case Row::Text: return v.is_string() ? v.get<std::string>() : v.dump();
    case Row::Percent: return fmt::format("{:.2f}%", 100 * v.get<double>());
    case Row::Seconds: return fmt::format("{:.2f} s", v.get<double>());
    case Row::Megabytes: return fmt::format("{:.1f} MB", v.get<double>() / 1e6);
    case Row::Number: return v.is_number_float() ? fmt::format("{:.0f}", v.get<double>()) : v.dump();
  }
  return "-";
}

}  // namespace

std::vector<std::string> compared_keys() {
  std::vector<std::string> out;
  for (const Row& row : kRows) out.push_back(row.key);
  return out;
}

std::string compare_runs(const std::vector<std::string>& run_dirs) {
  std::vector<nlohmann::json> summaries;
  for (const auto& dir : run_dirs) {
    const std::string file = dir + "/summary.json";
    std::ifstream in(file);
    if (!in) throw InputError(file, 0, "", "no summary.json: not a finished fedgrid run directory");
    try {
      summaries.push_back(nlohmann::json::parse(in));
    } catch (const nlohmann::json::exception& e) {
      throw InputError(file, 0, "", std::string("unreadable summary: ") + e.what());
    }
  }
  std::vector<std::vector<std::string>> table{{"run"}};
  for (const auto& dir : run_dirs) table[0].push_back(dir);
  for (const Row& row : kRows) {
    std::vector<std::string> line{row.label};
    for (const auto& s : summaries) line.push_back(cell(s, row));
    table.push_back(std::move(line));
  }
  std::vector<size_t> width(table[0].size(), 0);
  for (const auto& line : table)
    for (size_t c = 0; c < line.size(); ++c) width[c] = std::max(width[c], line[c].size());
  std::string out;
  for (const auto& line : table) {
    for (size_t c = 0; c < line.size(); ++c)
      out += c == 0 ? fmt::format("{:<{}}", line[c], width[c]) : fmt::format("  {:>{}}", line[c], width[c]);
    out += "\n";
  }
  return out;
}

}  // namespace fedgrid

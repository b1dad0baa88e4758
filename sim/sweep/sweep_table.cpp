#include "sim/sweep/sweep_table.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace fedgrid {
namespace {

// summary.json figures a sweep is compared by, in the order a reader looks at them.
const char* const kFigures[] = {"rounds",      "stop_reason",      "final_accuracy", "best_accuracy",
                                "final_auc",   "final_tier_gap",   "sim_time_s",     "time_to_target_s",
                                "bytes_total", "bytes_up",         "bytes_down",     "bytes_peer",
                                "messages",    "energy_j"};

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string value_text(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

constexpr const char* kTierFigure = "final_tier_accuracy";

// final_tier_accuracy of a summary ({} for a failed cell's empty summary).
nlohmann::json tier_accuracy(const nlohmann::json& summary) {
  if (!summary.is_object() || !summary.contains(kTierFigure)) return nlohmann::json::object();
  return summary[kTierFigure];
}

}  // namespace

std::vector<std::string> sweep_figures() {
  std::vector<std::string> out(std::begin(kFigures), std::end(kFigures));
  out.push_back(kTierFigure);
  return out;
}

std::string sweep_csv(const SweepPlan& plan, const std::vector<CellOutcome>& outcomes) {
  const auto cells = plan.cells();
  std::vector<const CellOutcome*> by_cell(cells.size(), nullptr);
  for (const auto& o : outcomes) by_cell.at(o.cell) = &o;
  std::vector<nlohmann::json> summaries(cells.size());
  // Tier columns: every tier any cell reports, in the order first seen.
  std::vector<std::string> tiers;
  for (size_t i = 0; i < cells.size(); ++i) {
    if (!by_cell[i] || !by_cell[i]->ok) continue;
    summaries[i] = nlohmann::json::parse(by_cell[i]->summary);
    const nlohmann::json per_tier = tier_accuracy(summaries[i]);
    for (const auto& [tier, acc] : per_tier.items())
      if (std::find(tiers.begin(), tiers.end(), tier) == tiers.end()) tiers.push_back(tier);
  }

  std::string out = "cell";
  for (const auto& a : plan.axes) out += "," + csv_field(a.name);
  out += ",seed,status,error,dir";
  for (const char* f : kFigures) out += std::string(",") + f;
  for (const auto& t : tiers) out += ",final_acc_" + t;
  out += "\n";
  for (size_t i = 0; i < cells.size(); ++i) {
    const CellOutcome* o = by_cell[i];
    out += std::to_string(i);
    for (const auto& v : cells[i].values) out += "," + csv_field(v);
    out += "," + std::to_string(cells[i].seed);
    out += !o ? ",missing,never ran" : o->ok ? ",ok," : ",failed," + csv_field(o->error);
    out += "," + csv_field(cells[i].dir);
    const auto& s = summaries[i];
    for (const char* f : kFigures) out += "," + (s.contains(f) ? csv_field(value_text(s[f])) : "");
    const nlohmann::json per_tier = tier_accuracy(s);
    for (const auto& t : tiers) out += "," + (per_tier.contains(t) ? value_text(per_tier[t]) : "");
    out += "\n";
  }
  return out;
}

void write_sweep_outputs(const SweepPlan& plan, const std::vector<CellOutcome>& outcomes) {
  nlohmann::ordered_json axes = nlohmann::ordered_json::array();
  for (const auto& a : plan.axes) axes.push_back({{"name", a.name}, {"key", a.key}, {"values", a.values}});
  nlohmann::ordered_json meta{{"name", plan.name}, {"base", plan.base},         {"set", plan.common},
                              {"axes", axes},      {"seeds", plan.seeds},       {"cells", plan.cells().size()}};
  std::ofstream json(plan.out + "/sweep.json");
  std::ofstream csv(plan.out + "/sweep.csv");
  if (!json || !csv) throw std::runtime_error("cannot write into " + plan.out);
  json << meta.dump(2) << "\n";
  csv << sweep_csv(plan, outcomes);
}

}  // namespace fedgrid

#pragma once
// The rules between scenario keys that the per-key table (key_table.hpp: type, bounds, allowed
// values) cannot express: each names the keys it relates, the condition under which a scenario
// breaks it, and the message. Each section declares its own (sim/scenario/sections/); the list
// joins them in the order problems are reported. scenario.cpp checks them once, when a scenario
// is loaded (paths resolved, before anything uses it); every broken rule is reported (exit 2),
// naming its first key where it was set.
#include <functional>
#include <string>
#include <vector>

#include "sim/core/input_error.hpp"
#include "sim/scenario/scenario.hpp"

namespace fedgrid {

struct CrossKeyRule {
  std::vector<std::string> keys;  // the keys it relates; the first is the one an error names
  std::function<bool(const Scenario&)> broken;
  std::function<std::string(const Scenario&)> message;
};

// A rule between the keys of one figure a hospital group draws
// (platform.hospitals[i].vary.<figure>, named as that key).
struct FigureDrawRule {
  std::vector<std::string> keys;  // relative to the figure's key
  std::function<bool(const FigureDraw&, const std::string& figure, const Scenario&)> broken;
  std::function<std::string(const std::string& figure)> message;
};

const std::vector<CrossKeyRule>& cross_key_rules();
const std::vector<FigureDrawRule>& figure_draw_rules();  // the platform section's

// Every rule `s` breaks, in the lists' order: the scenario's rules, each task's dataset
// name, then each drawn figure's rules.
std::vector<InputProblem> cross_key_problems(const Scenario& s);

}  // namespace fedgrid

// The report order of the sections' cross-key rules (sim/scenario/sections/). It is the order
// the rules had in one list before the sections were apart, kept so that a scenario's
// problems are reported as before; so a section's rules come in more than one group. A new
// rule joins its section's group; a new group is listed here.
#include "sim/scenario/cross_key_rules.hpp"

#include "sim/scenario/sections/parts.hpp"

namespace fedgrid {

const std::vector<CrossKeyRule>& cross_key_rules() {
  static const std::vector<CrossKeyRule> rules = [] {
    using namespace sections;
    std::vector<CrossKeyRule> all;
    for (auto part : {training_setting_rules(), data_split_rules(), platform_hospital_rules(), data_pool_rules(),
                      training_use_rules(), timing_compute_rules(), data_timing_only_rules(), timing_cohort_rules(),
                      platform_xml_rules(), timing_network_rules(), stop_rules(), compression_rules(),
                      timing_compression_rules()})
      all.insert(all.end(), part.begin(), part.end());
    return all;
  }();
  return rules;
}

std::vector<InputProblem> cross_key_problems(const Scenario& s) {
  std::vector<InputProblem> problems;
  auto report = [&](const std::string& key, const std::string& message) {
    problems.push_back(s.error_at(key, message).problems()[0]);
  };
  for (const CrossKeyRule& rule : cross_key_rules())
    if (rule.broken(s)) report(rule.keys[0], rule.message(s));
  for (size_t i = 0; i < s.data.tasks.size(); ++i)
    if (!sections::known_dataset(s.data.tasks[i].dataset))
      report("data.tasks[" + std::to_string(i) + "].dataset", sections::unknown_dataset(s.data.tasks[i].dataset));
  for (size_t i = 0; i < s.platform.hospitals.size(); ++i)
    for (const auto& [figure, draw] : s.platform.hospitals[i].vary)
      for (const FigureDrawRule& rule : figure_draw_rules())
        if (rule.broken(draw, figure, s))
          report("platform.hospitals[" + std::to_string(i) + "].vary." + figure, rule.message(figure));
  return problems;
}

}  // namespace fedgrid

#include "sim/scenario/scenario.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "sim/core/input_error.hpp"
#include "sim/scenario/core_keys.hpp"
#include "sim/scenario/cross_key_rules.hpp"
#include "sim/scenario/key_set.hpp"
#include "sim/scenario/overrides.hpp"
#include "sim/scenario/quickstart_yaml.hpp"
#include "sim/scenario/validation.hpp"
#include "sim/scenario/yaml_node.hpp"

namespace fedgrid {
namespace fs = std::filesystem;

InputError Scenario::error_at(const std::string& key, const std::string& message) const {
  auto it = key_lines.find(key);
  return InputError(file, it == key_lines.end() ? 0 : it->second, key, message);
}

namespace {

std::string resolve_path(const std::string& p, const std::string& scenario_file) {
  if (p.empty()) return p;
  fs::path path(p);
  if (path.is_absolute()) return p;
  std::vector<fs::path> candidates{fs::current_path() / path};
  if (!scenario_file.empty() && scenario_file[0] != '<')
    candidates.push_back(fs::path(scenario_file).parent_path() / path);
  candidates.push_back(fs::path(FEDGRID_SOURCE_DIR) / path);
  // error_code forms: a path the system refuses (too long, say) is one that is not there.
  std::error_code ec;
  for (const auto& c : candidates)
    if (fs::exists(c, ec)) {
      const fs::path canonical = fs::weakly_canonical(c, ec);
      return ec ? c.string() : canonical.string();
    }
  return p;  // left as given: the component that opens it reports it missing
}

Scenario build(const YAML::Node& root, const std::string& file, std::map<std::string, int> lines) {
  Scenario s;
  s.file = file;
  s.key_lines = std::move(lines);
  core_keys().read_into(s, KeyValues(std::make_shared<KeyValues::Node>(KeyValues::Node{root}), ""));
  auto line_of = [&](const std::string& key) {
    auto it = s.key_lines.find(key);
    return it == s.key_lines.end() ? 0 : it->second;
  };

  // What the declarations read as given, completed: paths resolved, defaults that depend on
  // other keys, where each list item was declared.
  auto& p = s.platform;
  p.tiers_file = resolve_path(p.tiers_file.empty() ? "platforms/tiers.yaml" : p.tiers_file, file);
  p.roster = resolve_path(p.roster, file);
  p.xml = resolve_path(p.xml, file);
  for (size_t i = 0; i < p.hospitals.size(); ++i) {
    auto& h = p.hospitals[i];
    h.line = line_of("platform.hospitals[" + std::to_string(i) + "].tier");
    if (h.model && h.model->arch.empty()) h.model->arch = s.model.arch;  // the global model's
    if (h.model && h.model->width_multiplier == 0) h.model->width_multiplier = s.model.width_multiplier;
    for (auto& [figure, draw] : h.vary) draw.file = resolve_path(draw.file, file);
  }
  auto& d = s.data;
  auto dataset_path = [&](std::string name) {
    for (const char* prefix : {"idx:", "npz:"})
      if (name.rfind(prefix, 0) == 0) name = prefix + resolve_path(name.substr(4), file);
    return name;
  };
  d.dataset = dataset_path(d.dataset);
  for (size_t i = 0; i < d.tasks.size(); ++i) {
    d.tasks[i].dataset = dataset_path(d.tasks[i].dataset);
    d.tasks[i].line = line_of("data.tasks[" + std::to_string(i) + "].dataset");
  }
  auto& t = s.training;
  t.surrogate = resolve_path(t.surrogate, file);
  s.timing.profile = resolve_path(s.timing.profile, file);
  for (auto* trace : {&s.faults.availability_trace, &s.faults.crash_trace, &s.faults.link_trace})
    *trace = resolve_path(*trace, file);
  if (s.output.dir.empty()) s.output.dir = "results/" + s.name;

  // The rules between keys (cross_key_rules.hpp), checked once here; a tier ratio that fits
  // then becomes the hospital groups.
  if (auto problems = cross_key_problems(s); !problems.empty()) throw InputError(problems);
  if (!p.tier_ratio.empty()) {
    p.hospitals = *tier_ratio_groups(p.tier_ratio, p.hospital_count);
    for (auto& g : p.hospitals) g.line = line_of("platform.tier_ratio");
  }
  return s;
}

Scenario load_from_node(YAML::Node root, const std::string& label, const std::vector<std::string>& overrides) {
  if (root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  if (!root.IsMap()) throw InputError(label, 1, "", "a scenario must be a YAML mapping of keys");
  auto overridden = apply_overrides(root, overrides);
  std::map<std::string, int> lines;
  if (auto problems = validate(root, label, overridden, lines); !problems.empty()) throw InputError(problems);
  return build(root, label, std::move(lines));
}

}  // namespace

Scenario load_scenario_text(const std::string& text, const std::string& label,
                            const std::vector<std::string>& overrides) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InputError(label, e.mark.line >= 0 ? e.mark.line + 1 : 0, "", "malformed YAML: " + e.msg);
  }
  return load_from_node(root, label, overrides);
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "", "cannot open scenario file");
  std::stringstream ss;
  ss << in.rdbuf();
  return load_scenario_text(ss.str(), path, overrides);
}

Scenario builtin_quickstart(const std::vector<std::string>& overrides) {
  return load_scenario_text(kQuickstartYaml, "<built-in quickstart>", overrides);
}

}  // namespace fedgrid

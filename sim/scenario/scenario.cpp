#include "sim/scenario/scenario.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "sim/core/input_error.hpp"
#include "sim/scenario/core_keys.hpp"
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

// "7:2:1" with 30 hospitals -> groups of 21 weak, 6 medium, 3 strong (DynamicFL's
// --device_ratio, weak:medium:strong); nullopt when the text or the count does not fit.
std::optional<std::vector<HospitalGroup>> tier_ratio_groups(const std::string& text, std::optional<int> count) {
  std::vector<int> parts;
  std::stringstream ss(text);
  for (std::string part; std::getline(ss, part, ':');) {
    if (part.empty() || part.size() > 6 || !std::all_of(part.begin(), part.end(), ::isdigit)) return std::nullopt;
    parts.push_back(std::stoi(part));
  }
  const int sum = parts.size() == 3 ? parts[0] + parts[1] + parts[2] : 0;
  if (sum == 0 || !count || *count % sum != 0) return std::nullopt;
  std::vector<HospitalGroup> groups;
  const char* tiers[] = {"weak", "medium", "strong"};
  for (int i = 0; i < 3; ++i)
    if (parts[size_t(i)] > 0) {
      HospitalGroup g;
      g.count = parts[size_t(i)] * (*count / sum);
      g.tier = tiers[i];
      groups.push_back(g);
    }
  return groups;
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

  // Cross-key checks that the per-key table cannot express.
  std::vector<InputProblem> problems;
  double sum = d.split_train + d.split_val + d.split_test;
  if (s.training.lr_schedule == "cosine" && s.training.lr_min > s.training.lr)
    problems.push_back(s.error_at("training.lr_min", "must not exceed training.lr (" + std::to_string(s.training.lr) +
                                                         "): the cosine schedule decays from lr to lr_min")
                           .problems()[0]);
  {
    const std::string& fuse = s.training.fuse;
    const bool count = !fuse.empty() && fuse.size() <= 6 && fuse[0] != '0' &&
                       std::all_of(fuse.begin(), fuse.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (fuse != "off" && fuse != "auto" && !count)
      problems.push_back(s.error_at("training.fuse", "expected off, auto or a positive number of hospitals per fused "
                                                     "job (e.g. 16), got '" + fuse + "'")
                             .problems()[0]);
  }
  if (d.split_folds > 0) {
    // The folds decide the train and test shares; a share given too would be silently ignored.
    for (const char* key : {"data.split.train", "data.split.test"})
      if (s.key_lines.count(key))
        problems.push_back(s.error_at(key, std::string("not used with data.split.folds (the folds decide the train and "
                                                       "test shares; data.split.val's share of the rest is validation)"))
                               .problems()[0]);
    if (d.split_folds < 2)
      problems.push_back(s.error_at("data.split.folds", "must be at least 2 (or 0: no cross-validation)").problems()[0]);
    else if (d.split_fold > d.split_folds)
      problems.push_back(s.error_at("data.split.fold", "must be within 1.." + std::to_string(d.split_folds) + ", got " +
                                                           std::to_string(d.split_fold))
                             .problems()[0]);
    if (d.split_val >= 1) problems.push_back(s.error_at("data.split.val", "must be < 1 with data.split.folds").problems()[0]);
  } else if (std::abs(sum - 1.0) > 1e-6)
    problems.push_back(s.error_at("data.split", "train + val + test must be 1, got " + std::to_string(sum)).problems()[0]);
  if (d.split_train <= 0) problems.push_back(s.error_at("data.split.train", "must be > 0").problems()[0]);
  if (!p.tier_ratio.empty()) {
    if (!p.hospitals.empty() || !p.roster.empty() || !p.xml.empty())
      problems.push_back(s.error_at("platform.tier_ratio", "give either platform.tier_ratio or platform.hospitals/roster/xml, not both").problems()[0]);
    else if (auto groups = tier_ratio_groups(p.tier_ratio, p.hospital_count)) {
      const auto it = s.key_lines.find("platform.tier_ratio");
      for (auto& g : *groups) g.line = it == s.key_lines.end() ? 0 : it->second;
      p.hospitals = *groups;
    } else {
      problems.push_back(s.error_at("platform.tier_ratio", "expected weak:medium:strong non-negative integers (e.g. 7:2:1) "
                                                           "with platform.hospital_count a positive multiple of their sum, got '" +
                                                           p.tier_ratio + "' and " +
                                                           (p.hospital_count ? std::to_string(*p.hospital_count) : "no count")).problems()[0]);
    }
  } else if (p.hospital_count) {
    problems.push_back(s.error_at("platform.hospital_count", "needs platform.tier_ratio").problems()[0]);
  }
  int sources = !p.hospitals.empty() + !p.roster.empty() + !p.xml.empty();
  if (sources == 0)
    problems.push_back(s.error_at("platform.hospitals", "no hospitals: give platform.hospitals, platform.roster or platform.xml").problems()[0]);
  if (!p.hospitals.empty() && !p.roster.empty())
    problems.push_back(s.error_at("platform.roster", "give either platform.hospitals or platform.roster, not both").problems()[0]);
  auto check_dataset = [&](const std::string& ds, const std::string& key) {
    if (ds != "synthetic" && ds != "fashion-mnist" && ds.rfind("idx:", 0) != 0 && ds.rfind("npz:", 0) != 0)
      problems.push_back(s.error_at(key, "unknown dataset '" + ds + "' (synthetic | fashion-mnist | idx:<dir> | npz:<file>)").problems()[0]);
  };
  check_dataset(d.dataset, "data.dataset");
  for (size_t i = 0; i < d.tasks.size(); ++i) check_dataset(d.tasks[i].dataset, "data.tasks[" + std::to_string(i) + "].dataset");
  if (!d.label_map.empty() && !d.tasks.empty())
    problems.push_back(s.error_at("data.label_map", "relabels data.dataset; with data.tasks each task's classes key "
                                                    "selects its labels").problems()[0]);
  auto timing_only_key = [&](const std::string& key, bool set) {
    if (set && !t.timing_only)
      problems.push_back(s.error_at(key, "needs training.mode: timing-only (a real run trains on real data)").problems()[0]);
  };
  timing_only_key("training.surrogate", !t.surrogate.empty());
  if (s.timing.compute == "profile" && s.timing.profile.empty())
    problems.push_back(s.error_at("timing.profile", "timing.compute: profile needs the profile (`fedgrid calibrate --out FILE` writes one)").problems()[0]);
  if (s.timing.compute != "profile" && !s.timing.profile.empty())
    problems.push_back(s.error_at("timing.profile", "is read only with timing.compute: profile").problems()[0]);
  timing_only_key("data.samples_per_hospital", d.samples_per_hospital.has_value());
  // Each drawn figure names what its distribution needs, and nothing it ignores.
  for (size_t i = 0; i < p.hospitals.size(); ++i)
    for (const auto& [figure, d] : p.hospitals[i].vary) {
      const std::string key = "platform.hospitals[" + std::to_string(i) + "].vary." + figure;
      auto problem = [&](const std::string& what) { problems.push_back(s.error_at(key, what).problems()[0]); };
      const bool lognormal = d.dist == "lognormal", uniform = d.dist == "uniform", empirical = d.dist == "empirical";
      if (lognormal && (!d.median || !d.sigma)) problem("lognormal needs median and sigma");
      if (uniform && (!d.min || !d.max)) problem("uniform needs min and max");
      if (empirical && d.file.empty()) problem("empirical needs file (a CSV of observed values)");
      if (!lognormal && (d.median || d.sigma)) problem("median and sigma are lognormal's");
      if (!empirical && (!d.file.empty() || d.column != figure)) problem("file and column are empirical's");
      if (d.min && d.max && *d.min > *d.max) problem("min is above max");
      if (uniform && d.min && *d.min == 0 && figure != "latency_s") problem("min must be positive: " + figure + " 0 is no machine");
      if (figure == "samples") timing_only_key(key, true);
    }
  timing_only_key("timing.cohorts", s.timing.cohorts);
  if (s.timing.cohorts && s.timing.network != "cm02")
    problems.push_back(s.error_at("timing.cohorts", "needs timing.network: cm02 (under LV08 a representative's RTT weight "
                                                    "would differ from its members')").problems()[0]);
  if (p.xml.empty() && !p.xml_hospitals.empty())
    problems.push_back(s.error_at("platform.xml_hospitals", "is read only with platform.xml").problems()[0]);
  if (p.xml.empty() && !p.xml_tiers.empty())
    problems.push_back(s.error_at("platform.xml_tiers", "is read only with platform.xml").problems()[0]);
  if (s.timing.cohorts && !p.xml.empty())
    problems.push_back(s.error_at("timing.cohorts", "works on the built-in star platform, not on platform.xml").problems()[0]);
  if (s.timing.cohorts && s.faults.any())
    problems.push_back(s.error_at("timing.cohorts", "cannot be combined with faults.*: a fault makes a cohort's members differ").problems()[0]);
  if (s.timing.network == "fluid") {
    auto refuse = [&](const std::string& why) { problems.push_back(s.error_at("timing.network", why).problems()[0]); };
    if (!p.xml.empty()) refuse("fluid shares the built-in star's server links; a platform.xml has its own routes (use cm02)");
    if (s.timing.cohorts) refuse("fluid and timing.cohorts are two ways to scale: choose one");
    if (s.faults.any()) refuse("fluid cannot cut a transfer half way, as faults.* need (use cm02)");
  }
  if (!problems.empty()) throw InputError(problems);
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

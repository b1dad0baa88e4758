#include "sim/scenario/scenario.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "sim/core/input_error.hpp"
#include "sim/scenario/quickstart_yaml.hpp"
#include "sim/scenario/key_table.hpp"

namespace fedgrid {
namespace fs = std::filesystem;

InputError Scenario::error_at(const std::string& key, const std::string& message) const {
  auto it = key_lines.find(key);
  return InputError(file, it == key_lines.end() ? 0 : it->second, key, message);
}

namespace {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string parent_of(const std::string& path) {
  auto dot = path.rfind('.');
  return dot == std::string::npos ? "" : path.substr(0, dot);
}

// Walks the YAML tree against the key table and collects every problem.
class Validator {
 public:
  Validator(std::string file, std::set<std::string> overridden)
      : file_(std::move(file)), overridden_(std::move(overridden)) {}

  void check_map(const YAML::Node& map, const std::string& prefix, const std::string& concrete) {
    std::set<std::string> seen;
    for (auto it = map.begin(); it != map.end(); ++it) {
      const std::string key = it->first.as<std::string>();
      const std::string path = prefix.empty() ? key : prefix + "." + key;
      const std::string where = concrete.empty() ? key : concrete + "." + key;
      const int line = line_of(it->first, where);
      // yaml-cpp keeps both entries of a repeated key and reads the first: say so, never pick one.
      if (!seen.insert(key).second) {
        add(line, where, "given twice in the same mapping (merge the two)", where);
        continue;
      }
      lines_[where] = line;
      const KeyDecl* decl = find_key(path);
      if (!decl) {
        std::string hint = closest_key(path);
        add(line, where, "unknown key" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)"), where);
        continue;
      }
      check_value(*decl, it->second, path, where, line);
    }
  }

  std::vector<InputProblem> problems;
  std::map<std::string, int> lines_;

 private:
  int line_of(const YAML::Node& n, const std::string& where) const {
    for (const auto& o : overridden_)
      if (where == o || where.rfind(o + ".", 0) == 0) return 0;
    return n.Mark().line >= 0 ? n.Mark().line + 1 : 0;
  }

  void add(int line, const std::string& key, const std::string& message, const std::string& where) {
    bool from_set = false;
    for (const auto& o : overridden_)
      if (where == o || where.rfind(o + ".", 0) == 0) from_set = true;
    problems.push_back({from_set ? "--set" : file_, line, key, message});
  }

  void check_value(const KeyDecl& decl, const YAML::Node& v, const std::string& path,
                   const std::string& where, int line) {
    auto wrong = [&](const std::string& what) {
      add(line, where, "expected " + type_name(decl.type) + ", got " + what, where);
    };
    if (v.IsNull()) return;  // `key:` or `key: null` leaves the key unset
    switch (decl.type) {
      case KeyType::Map:
        if (!v.IsMap()) return wrong(describe(v));
        return check_map(v, path, where);
      case KeyType::List:
        if (!v.IsSequence()) return wrong(describe(v));
        for (size_t i = 0; i < v.size(); ++i) {
          const std::string item = where + "[" + std::to_string(i) + "]";
          if (!v[i].IsMap()) {
            add(line_of(v[i], item), item, "expected a mapping", where);
            continue;
          }
          check_map(v[i], path + "[]", item);
          for (const auto& k : scenario_keys())
            if (k.required && parent_of(k.path) == path + "[]" && !v[i][k.path.substr(path.size() + 3)])
              add(line_of(v[i], item), item + "." + k.path.substr(path.size() + 3), "required key is missing", item);
        }
        return;
      case KeyType::ModelChoice:
        if (v.IsMap()) return check_map(v, path, where);
        if (v.IsSequence()) return wrong(describe(v));
        break;  // a scalar: an arch name, checked below
      case KeyType::IntList:
        if (!v.IsSequence() || v.size() == 0) return wrong(describe(v));
        for (size_t i = 0; i < v.size(); ++i) {
          const std::string item = where + "[" + std::to_string(i) + "]";
          int64_t x = 0;
          try {
            x = v[i].as<int64_t>();
          } catch (const YAML::Exception&) {
            add(line_of(v[i], item), item, "expected an integer, got " + describe(v[i]), where);
            continue;
          }
          if (decl.min && double(x) < *decl.min)
            add(line_of(v[i], item), item, "must be >= " + fmt(*decl.min) + ", got " + std::to_string(x), where);
        }
        return;
      default:
        break;
    }
    if (!v.IsScalar()) return wrong(describe(v));
    const std::string text = v.Scalar();
    double number = 0;
    try {
      if (decl.type == KeyType::Int) number = double(v.as<int64_t>());
      if (decl.type == KeyType::Float) number = v.as<double>();
      if (decl.type == KeyType::Bool) (void)v.as<bool>();
    } catch (const YAML::Exception&) {
      return wrong("'" + text + "'");
    }
    if (decl.type == KeyType::Int || decl.type == KeyType::Float) {
      if (decl.min && (number < *decl.min || (decl.min_exclusive && number == *decl.min)))
        add(line, where, "must be " + std::string(decl.min_exclusive ? "> " : ">= ") + fmt(*decl.min) + ", got " + text, where);
      if (decl.max && number > *decl.max)
        add(line, where, "must be <= " + fmt(*decl.max) + ", got " + text, where);
    }
    if (!decl.allowed.empty() &&
        std::find(decl.allowed.begin(), decl.allowed.end(), text) == decl.allowed.end()) {
      std::string list;
      for (const auto& a : decl.allowed) list += (list.empty() ? "" : ", ") + a;
      add(line, where, "'" + text + "' is not one of: " + list, where);
    }
  }

  static std::string fmt(double x) {
    std::ostringstream os;
    os << x;
    return os.str();
  }
  static std::string describe(const YAML::Node& v) {
    if (v.IsMap()) return "a mapping";
    if (v.IsSequence()) return "a list";
    if (v.IsNull()) return "nothing";
    return "'" + v.Scalar() + "'";
  }

  std::string file_;
  std::set<std::string> overridden_;
};

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::stringstream ss(path);
  for (std::string p; std::getline(ss, p, '.');) parts.push_back(p);
  return parts;
}

// Applies "a.b.c=value" (list items by index: platform.hospitals.0.count=5).
std::set<std::string> apply_overrides(YAML::Node& root, const std::vector<std::string>& overrides) {
  std::set<std::string> overridden;
  for (const auto& o : overrides) {
    auto eq = o.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("--set", 0, "", "expected key.path=value, got '" + o + "'");
    const std::string path = o.substr(0, eq);
    YAML::Node value;
    try {
      value = YAML::Load(o.substr(eq + 1));
    } catch (const YAML::Exception& e) {
      throw InputError("--set", 0, path, "cannot parse value: " + e.msg);
    }
    auto parts = split_path(path);
    std::vector<YAML::Node> chain{root};
    std::string concrete;
    for (size_t i = 0; i < parts.size(); ++i) {
      YAML::Node cur = chain.back();
      const bool last = i + 1 == parts.size();
      const bool index = cur.IsSequence() && !parts[i].empty() &&
                         std::all_of(parts[i].begin(), parts[i].end(), ::isdigit);
      if (index) {
        size_t k = std::stoul(parts[i]);
        if (k >= cur.size())
          throw InputError("--set", 0, path, "list index " + parts[i] + " out of range");
        concrete += "[" + parts[i] + "]";
        if (last) cur[k] = value;
        else chain.push_back(cur[k]);
      } else {
        concrete += (concrete.empty() ? "" : ".") + parts[i];
        if (last) cur[parts[i]] = value;
        else {
          if (!cur[parts[i]] || cur[parts[i]].IsNull()) cur[parts[i]] = YAML::Node(YAML::NodeType::Map);
          chain.push_back(cur[parts[i]]);
        }
      }
    }
    overridden.insert(concrete);
  }
  return overridden;
}

// Reads a key's value, or its declared default.
class Reader {
 public:
  explicit Reader(const YAML::Node& root) : root_(root) {}
  YAML::Node node(const std::string& path) const {
    YAML::Node cur = root_;
    for (const auto& p : split_path(path)) {
      const YAML::Node& here = cur;
      if (!here.IsMap() || !here[p]) return YAML::Node();
      cur.reset(here[p]);  // reset, not operator=: assigning a yaml-cpp node rewrites the tree
    }
    return cur;
  }
  template <class T>
  T get(const std::string& path) const {
    YAML::Node n = node(path);
    if (n && !n.IsNull()) return n.as<T>();
    const KeyDecl* d = find_key(path);
    return YAML::Load(*d->default_value).as<T>();
  }
  template <class T>
  std::optional<T> maybe(const std::string& path) const {
    YAML::Node n = node(path);
    if (n && !n.IsNull()) return n.as<T>();
    return std::nullopt;
  }

 private:
  YAML::Node root_;
};

std::string resolve_path(const std::string& p, const std::string& scenario_file) {
  if (p.empty()) return p;
  fs::path path(p);
  if (path.is_absolute()) return p;
  std::vector<fs::path> candidates{fs::current_path() / path};
  if (!scenario_file.empty() && scenario_file[0] != '<')
    candidates.push_back(fs::path(scenario_file).parent_path() / path);
  candidates.push_back(fs::path(FEDGRID_SOURCE_DIR) / path);
  for (const auto& c : candidates)
    if (fs::exists(c)) return fs::weakly_canonical(c).string();
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

}  // namespace

struct AlgorithmSettings::Node {
  YAML::Node yaml;  // the section's mapping (undefined when the scenario has none)
};

namespace {

// The node at a dotted path below `root`, or an undefined node.
YAML::Node walk(const YAML::Node& root, const std::string& dotted) {
  YAML::Node cur = root;
  for (const auto& p : split_path(dotted)) {
    const YAML::Node& here = cur;
    if (!here || !here.IsMap() || !here[p]) return YAML::Node(YAML::NodeType::Undefined);
    cur.reset(here[p]);  // reset, not operator=: assigning a yaml-cpp node rewrites the tree
  }
  return cur;
}

}  // namespace

struct ScenarioBuilder {
  static void set_algorithm(AlgorithmSettings& settings, const YAML::Node& section) {
    settings.node_ = std::make_shared<AlgorithmSettings::Node>(AlgorithmSettings::Node{section});
  }
};

AlgorithmSettings::AlgorithmSettings() : node_(std::make_shared<Node>()), declared_("algorithm") {}

template <class T>
std::optional<T> AlgorithmSettings::value(const std::string& name) const {
  if (YAML::Node n = walk(node_->yaml, name); n && !n.IsNull()) return n.as<T>();
  const KeyDecl* d = find_key(declared_ + "." + name);
  if (d && d->default_value) return YAML::Load(*d->default_value).as<T>();
  return std::nullopt;
}
template std::optional<bool> AlgorithmSettings::value<bool>(const std::string&) const;
template std::optional<int> AlgorithmSettings::value<int>(const std::string&) const;
template std::optional<int64_t> AlgorithmSettings::value<int64_t>(const std::string&) const;
template std::optional<uint64_t> AlgorithmSettings::value<uint64_t>(const std::string&) const;
template std::optional<double> AlgorithmSettings::value<double>(const std::string&) const;
template std::optional<std::string> AlgorithmSettings::value<std::string>(const std::string&) const;
template std::optional<std::vector<int>> AlgorithmSettings::value<std::vector<int>>(const std::string&) const;

size_t AlgorithmSettings::items(const std::string& name) const {
  const YAML::Node n = walk(node_->yaml, name);
  return n && n.IsSequence() ? n.size() : 0;
}

AlgorithmSettings AlgorithmSettings::item(const std::string& name, size_t i) const {
  AlgorithmSettings out;
  out.node_ = std::make_shared<Node>(Node{walk(node_->yaml, name)[i]});
  out.declared_ = declared_ + "." + name + "[]";
  return out;
}

namespace {

Scenario build(const YAML::Node& root, const std::string& file, std::map<std::string, int> lines) {
  Reader r(root);
  Scenario s;
  s.file = file;
  s.key_lines = std::move(lines);
  s.name = r.get<std::string>("name");
  s.seed = r.get<uint64_t>("seed");

  auto& p = s.platform;
  auto tiers = r.maybe<std::string>("platform.tiers");
  p.tiers_file = resolve_path(tiers ? *tiers : "platforms/tiers.yaml", file);
  p.server_tier = r.get<std::string>("platform.server.tier");
  p.server_host = r.get<std::string>("platform.server.host");
  if (YAML::Node list = r.node("platform.hospitals"); list && list.IsSequence()) {
    for (size_t i = 0; i < list.size(); ++i) {
      const YAML::Node& g = list[i];
      HospitalGroup h;
      h.count = g["count"] ? g["count"].as<int>() : 1;
      h.tier = g["tier"].as<std::string>();
      if (g["name"]) h.name = g["name"].as<std::string>();
      if (g["speed_flops"]) h.speed_flops = g["speed_flops"].as<double>();
      if (g["uplink_bps"]) h.uplink_bps = g["uplink_bps"].as<double>();
      if (g["downlink_bps"]) h.downlink_bps = g["downlink_bps"].as<double>();
      if (g["latency_s"]) h.latency_s = g["latency_s"].as<double>();
      if (const YAML::Node m = g["model"]; m && !m.IsNull()) {
        ModelChoice choice{r.get<std::string>("model.arch"), r.get<double>("model.width_multiplier")};
        if (m.IsScalar()) choice.arch = m.as<std::string>();
        if (m.IsMap() && m["arch"]) choice.arch = m["arch"].as<std::string>();
        if (m.IsMap() && m["width_multiplier"]) choice.width_multiplier = m["width_multiplier"].as<double>();
        h.model = choice;
      }
      auto it = s.key_lines.find("platform.hospitals[" + std::to_string(i) + "].tier");
      h.line = it == s.key_lines.end() ? 0 : it->second;
      p.hospitals.push_back(h);
    }
  }
  if (auto ratio = r.maybe<std::string>("platform.tier_ratio")) {
    p.tier_ratio = *ratio;
    p.hospital_count = r.maybe<int>("platform.hospital_count");
  }
  if (auto roster = r.maybe<std::string>("platform.roster")) p.roster = resolve_path(*roster, file);
  if (auto xml = r.maybe<std::string>("platform.xml")) p.xml = resolve_path(*xml, file);
  p.backbone_bandwidth_bps = r.get<double>("platform.backbone.bandwidth_bps");
  p.backbone_latency_s = r.get<double>("platform.backbone.latency_s");

  auto& d = s.data;
  auto dataset_path = [&](std::string name) {
    for (const char* prefix : {"idx:", "npz:"})
      if (name.rfind(prefix, 0) == 0) name = prefix + resolve_path(name.substr(4), file);
    return name;
  };
  d.dataset = dataset_path(r.get<std::string>("data.dataset"));
  if (YAML::Node list = r.node("data.tasks"); list && list.IsSequence()) {
    for (size_t i = 0; i < list.size(); ++i) {
      DataTask t;
      t.dataset = dataset_path(list[i]["dataset"].as<std::string>());
      if (list[i]["classes"])
        for (const auto& c : list[i]["classes"]) t.classes.push_back(c.as<int>());
      t.hospitals = list[i]["hospitals"].as<int>();
      if (list[i]["train_samples"]) t.train_samples = list[i]["train_samples"].as<int64_t>();
      auto it = s.key_lines.find("data.tasks[" + std::to_string(i) + "].dataset");
      t.line = it == s.key_lines.end() ? 0 : it->second;
      d.tasks.push_back(t);
    }
  }
  d.resize = r.maybe<int>("data.resize");
  d.partition_scheme = r.get<std::string>("data.partition.scheme");
  d.beta = r.get<double>("data.partition.beta");
  d.classes_per_hospital = r.get<int>("data.partition.classes_per_hospital");
  d.min_samples = r.get<int64_t>("data.partition.min_samples");
  d.split_train = r.get<double>("data.split.train");
  d.split_val = r.get<double>("data.split.val");
  d.split_test = r.get<double>("data.split.test");
  d.synthetic_train = r.get<int64_t>("data.synthetic.train_samples");
  d.synthetic_test = r.get<int64_t>("data.synthetic.test_samples");
  d.synthetic_classes = r.get<int>("data.synthetic.classes");
  d.synthetic_channels = r.get<int>("data.synthetic.channels");
  d.synthetic_height = r.get<int>("data.synthetic.height");
  d.synthetic_width = r.get<int>("data.synthetic.width");
  d.synthetic_noise = r.get<double>("data.synthetic.noise");
  d.samples_per_hospital = r.maybe<int64_t>("data.samples_per_hospital");
  d.server_share = r.get<double>("data.server_share");

  s.model.arch = r.get<std::string>("model.arch");
  s.model.width_multiplier = r.get<double>("model.width_multiplier");
  for (const std::string tier : {"weak", "medium", "strong"}) {
    const YAML::Node choice = r.node("model." + tier);
    if (!choice || choice.IsNull()) continue;
    Scenario::TierModel m{s.model.arch, s.model.width_multiplier};
    if (choice.IsScalar()) m.arch = choice.as<std::string>();
    if (auto a = r.maybe<std::string>("model." + tier + ".arch")) m.arch = *a;
    if (auto w = r.maybe<double>("model." + tier + ".width_multiplier")) m.width_multiplier = *w;
    s.model.tiers[tier] = m;
  }

  auto& t = s.training;
  t.timing_only = r.get<std::string>("training.mode") == "timing-only";
  if (auto surrogate = r.maybe<std::string>("training.surrogate")) t.surrogate = resolve_path(*surrogate, file);
  t.optimizer = r.get<std::string>("training.optimizer");
  t.lr = r.get<double>("training.lr");
  t.momentum = r.get<double>("training.momentum");
  t.weight_decay = r.get<double>("training.weight_decay");
  t.batch_size = r.get<int>("training.batch_size");
  t.local_epochs = r.get<int>("training.local_epochs");
  t.local_steps = r.get<int64_t>("training.local_steps");
  t.device = r.get<std::string>("training.device");
  t.workers = r.get<int>("training.workers");
  t.threads_per_worker = r.get<int>("training.threads_per_worker");

  s.algorithm.name = r.get<std::string>("algorithm.name");
  ScenarioBuilder::set_algorithm(s.algorithm.settings, r.node("algorithm"));

  s.stop.rounds = r.get<int>("stop.rounds");
  s.stop.target_accuracy = r.maybe<double>("stop.target_accuracy");
  s.stop.sim_time_budget_s = r.maybe<double>("stop.sim_time_budget_s");

  s.timing.compute = r.get<std::string>("timing.compute");
  s.timing.network = r.get<std::string>("timing.network");
  s.timing.cohorts = r.get<bool>("timing.cohorts");

  auto dir = r.maybe<std::string>("output.dir");
  s.output.dir = dir ? *dir : "results/" + s.name;
  s.output.trace = r.get<bool>("output.trace");
  s.output.eval_every = r.get<int>("output.eval_every");
  s.output.global_test = r.get<bool>("output.global_test");

  // Cross-key checks that the per-key table cannot express.
  std::vector<InputProblem> problems;
  double sum = d.split_train + d.split_val + d.split_test;
  if (std::abs(sum - 1.0) > 1e-6)
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
  auto timing_only_key = [&](const std::string& key, bool set) {
    if (set && !t.timing_only)
      problems.push_back(s.error_at(key, "needs training.mode: timing-only (a real run trains on real data)").problems()[0]);
  };
  timing_only_key("training.surrogate", !t.surrogate.empty());
  timing_only_key("data.samples_per_hospital", d.samples_per_hospital.has_value());
  timing_only_key("timing.cohorts", s.timing.cohorts);
  if (s.timing.cohorts && s.timing.network != "cm02")
    problems.push_back(s.error_at("timing.cohorts", "needs timing.network: cm02 (under LV08 a representative's RTT weight "
                                                    "would differ from its members')").problems()[0]);
  if (s.timing.cohorts && !p.xml.empty())
    problems.push_back(s.error_at("timing.cohorts", "works on the built-in star platform, not on platform.xml").problems()[0]);
  if (!problems.empty()) throw InputError(problems);
  return s;
}

Scenario load_from_node(YAML::Node root, const std::string& label, const std::vector<std::string>& overrides) {
  if (root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  if (!root.IsMap()) throw InputError(label, 1, "", "a scenario must be a YAML mapping of keys");
  auto overridden = apply_overrides(root, overrides);
  Validator v(label, overridden);
  v.check_map(root, "", "");
  if (!v.problems.empty()) throw InputError(v.problems);
  return build(root, label, v.lines_);
}

}  // namespace

std::string closest_key(const std::string& path) {
  std::string best;
  size_t best_d = std::string::npos;
  const std::string leaf = path.substr(path.rfind('.') == std::string::npos ? 0 : path.rfind('.') + 1);
  for (const auto& k : scenario_keys()) {
    size_t d = edit_distance(path, k.path);
    // A known leaf under another parent is a likely mix-up too (e.g. "training.rounds").
    const std::string kleaf = k.path.substr(k.path.rfind('.') == std::string::npos ? 0 : k.path.rfind('.') + 1);
    if (kleaf == leaf) d = std::min<size_t>(d, 2);
    if (d < best_d) best_d = d, best = k.path;
  }
  return best_d <= std::max<size_t>(3, path.size() / 3) ? best : "";
}

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

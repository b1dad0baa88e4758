#include "sim/sweep/sweep_plan.hpp"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <regex>
#include <set>

#include "sim/core/input_error.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/key_table.hpp"

namespace fedgrid {
namespace {

namespace fs = std::filesystem;

int line_of(const YAML::Node& n) { return n.Mark().line + 1; }

// "platform.hospitals[0].uplink_bps" -> "platform.hospitals.0.uplink_bps", the form --set takes.
std::string set_form(const std::string& key) { return std::regex_replace(key, std::regex(R"(\[(\d+)\])"), ".$1"); }

// "platform.hospitals.0.uplink_bps" -> "platform.hospitals[].uplink_bps", the key table's form.
std::string declared_form(const std::string& key) {
  return std::regex_replace(key, std::regex(R"(\.\d+(?=\.|$))"), "[]");
}

std::string yaml_text(const YAML::Node& n) {
  YAML::Emitter e;
  e.SetMapFormat(YAML::Flow);
  e.SetSeqFormat(YAML::Flow);
  e << n;
  return e.c_str();
}

// Folder names keep letters, digits and . + - ; anything else becomes '_'.
std::string folder_safe(const std::string& s) {
  std::string out = s;
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '+' && c != '-' && c != '_') c = '_';
  return out;
}

class SweepReader {
 public:
  explicit SweepReader(std::string file) : file_(std::move(file)) {}

  SweepPlan read(const std::optional<std::string>& out, const std::vector<std::string>& overrides) {
    YAML::Node root;
    try {
      root = YAML::LoadFile(file_);
    } catch (const YAML::BadFile&) {
      throw InputError(file_, 0, "", "cannot read the sweep file");
    } catch (const YAML::ParserException& e) {
      throw InputError(file_, e.mark.line + 1, "", "malformed YAML: " + e.msg);
    }
    if (!root.IsMap()) throw InputError(file_, 1, "", "a sweep file is a mapping (name, base, set, axes, seeds)");
    static const std::set<std::string> known{"name", "base", "out", "set", "axes", "seeds"};
    for (const auto& kv : root) {
      const auto key = scalar(kv.first, "(top level)");
      if (!known.count(key)) fail(kv.first, key, "unknown key (a sweep has name, base, out, set, axes, seeds)");
    }

    SweepPlan p;
    p.file = file_;
    p.name = root["name"] ? scalar(root["name"], "name") : fs::path(file_).stem().string();
    if (!root["base"]) throw InputError(file_, 0, "base", "missing: the base scenario file");
    const fs::path base = scalar(root["base"], "base");
    p.base = (base.is_absolute() ? base : fs::path(file_).parent_path() / base).lexically_normal().string();
    p.out = out ? *out : root["out"] ? scalar(root["out"], "out") : "results/sweeps/" + p.name;

    std::set<std::string> keys_used;
    if (const auto set = root["set"]) {
      if (!set.IsMap()) fail(set, "set", "a mapping of scenario keys to values");
      for (const auto& kv : set) {
        const std::string key = checked_key(kv.first, "set", keys_used);
        p.common.push_back(key + "=" + yaml_text(kv.second));
      }
    }
    if (const auto axes = root["axes"]) {
      if (!axes.IsSequence()) fail(axes, "axes", "a list of {key, values[, name]}");
      for (size_t i = 0; i < axes.size(); ++i) p.axes.push_back(axis(axes[i], "axes[" + std::to_string(i) + "]", keys_used));
    }
    std::set<std::string> names;
    for (const auto& a : p.axes)
      if (!names.insert(a.name).second) throw InputError(file_, 0, "axes", "two axes named '" + a.name + "'");
    for (const auto& o : overrides) p.common.push_back(command_line_override(o, p.axes, root["seeds"]));

    // The base with the common overrides must load, with each algorithm an axis names if one does
    // (an algorithm's own key among the overrides must be a key of every one); its seed is the default.
    std::vector<std::vector<std::string>> loads{p.common};
    for (const auto& a : p.axes)
      if (a.key == "algorithm.name") {
        loads.clear();
        for (const auto& name : a.yaml) loads.push_back(p.common), loads.back().push_back(a.key + "=" + name);
      }
    const Scenario scenario = load_scenario(p.base, loads.front());
    for (size_t i = 1; i < loads.size(); ++i) load_scenario(p.base, loads[i]);
    if (const auto seeds = root["seeds"]) {
      if (!seeds.IsSequence() || seeds.size() == 0) fail(seeds, "seeds", "a non-empty list of seeds");
      std::set<uint64_t> seen;
      for (const auto& s : seeds) {
        uint64_t seed = 0;
        try {
          seed = s.as<uint64_t>();
        } catch (const YAML::Exception&) {
          fail(s, "seeds", "expected a non-negative integer, got '" + yaml_text(s) + "'");
        }
        if (!seen.insert(seed).second) fail(s, "seeds", "seed " + std::to_string(seed) + " given twice");
        p.seeds.push_back(seed);
      }
    } else {
      p.seeds.push_back(scenario.seed);
    }
    if (p.axes.empty() && p.seeds.size() < 2)
      throw InputError(file_, 0, "axes", "nothing to sweep: give axes, or several seeds");

    std::set<std::string> dirs;
    for (const auto& c : p.cells())
      if (!dirs.insert(c.dir).second)
        throw InputError(file_, 0, "axes", "two cells would share the folder '" + c.dir + "' (values differ only in characters a folder name cannot hold)");
    return p;
  }

 private:
  [[noreturn]] void fail(const YAML::Node& at, const std::string& key, const std::string& message) const {
    throw InputError(file_, line_of(at), key, message);
  }

  std::string scalar(const YAML::Node& n, const std::string& key) const {
    if (!n.IsScalar()) fail(n, key, "expected a single value");
    return n.Scalar();
  }

  // A scenario key, in --set form; it must be declared and used once in the whole sweep.
  std::string checked_key(const YAML::Node& n, const std::string& where, std::set<std::string>& used) const {
    const std::string key = set_form(scalar(n, where));
    if (!find_key(declared_form(key))) {
      const std::string hint = closest_key(declared_form(key));
      fail(n, where, "'" + key + "' is not a scenario key" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)") +
                         "; `fedgrid list keys` lists them");
    }
    if (key == "seed") fail(n, where, "the seed is swept with `seeds`, not as a key");
    if (key.rfind("output.dir", 0) == 0) fail(n, where, "each cell's output folder is set by the sweep");
    if (!used.insert(key).second) fail(n, where, "'" + key + "' is set twice in this sweep");
    return key;
  }

  SweepAxis axis(const YAML::Node& n, const std::string& where, std::set<std::string>& used) const {
    if (!n.IsMap()) fail(n, where, "expected {key, values[, name]}");
    for (const auto& kv : n) {
      const auto k = scalar(kv.first, where);
      if (k != "key" && k != "values" && k != "name") fail(kv.first, where + "." + k, "unknown key (an axis has key, values, name)");
    }
    if (!n["key"]) fail(n, where + ".key", "missing: the scenario key this axis varies");
    SweepAxis a;
    a.key = checked_key(n["key"], where + ".key", used);
    a.line = line_of(n["key"]);
    a.name = n["name"] ? scalar(n["name"], where + ".name") : a.key;
    const YAML::Node values = n["values"];
    if (!values || !values.IsSequence() || values.size() == 0) fail(values ? values : n, where + ".values", "a non-empty list of values");
    std::set<std::string> seen;
    for (const auto& v : values) {
      const std::string text = v.IsScalar() ? v.Scalar() : yaml_text(v);
      if (!seen.insert(text).second) fail(v, where + ".values", "value '" + text + "' given twice");
      a.values.push_back(text);
      a.yaml.push_back(yaml_text(v));
    }
    return a;
  }

  // A --set for every cell, in --set form. It may replace the file's `set:` value of a key, not
  // a value the grid varies: the axis would silently win over it (cells apply axes last).
  std::string command_line_override(const std::string& o, const std::vector<SweepAxis>& axes,
                                    const YAML::Node& seeds) const {
    const size_t eq = o.find('=');
    if (eq == std::string::npos || eq == 0) throw InputError("--set", 0, "", "expected key.path=value, got '" + o + "'");
    const std::string key = set_form(o.substr(0, eq));
    const auto within = [](const std::string& inner, const std::string& outer) {
      return inner == outer || (inner.size() > outer.size() && inner.rfind(outer, 0) == 0 && inner[outer.size()] == '.');
    };
    for (size_t i = 0; i < axes.size(); ++i)
      if (within(key, axes[i].key) || within(axes[i].key, key))
        throw InputError("--set", 0, key,
                         "'" + axes[i].key + "' is swept by axes[" + std::to_string(i) + "] (" + file_ + ":" +
                             std::to_string(axes[i].line) + "): the grid's values decide it, so --set may not");
    if (key == "seed" && seeds)
      throw InputError("--set", 0, key,
                       "the seed is swept by `seeds` (" + file_ + ":" + std::to_string(line_of(seeds)) + ")");
    if (within(key, "output.dir") || within("output.dir", key))
      throw InputError("--set", 0, key, "each cell's output folder is set by the sweep; --out names the sweep's folder");
    return key + "=" + o.substr(eq + 1);
  }

  std::string file_;
};

}  // namespace

std::vector<SweepCell> SweepPlan::cells() const {
  size_t count = seeds.size();
  for (const auto& a : axes) count *= a.values.size();
  std::vector<SweepCell> out;
  out.reserve(count);
  for (size_t index = 0; index < count; ++index) {
    SweepCell c;
    c.index = index;
    c.overrides = common;
    // Mixed radix: seeds vary fastest, the first axis slowest.
    size_t rest = index;
    c.seed = seeds[rest % seeds.size()];
    rest /= seeds.size();
    std::vector<size_t> pick(axes.size());
    for (size_t i = axes.size(); i-- > 0;) {
      pick[i] = rest % axes[i].values.size();
      rest /= axes[i].values.size();
    }
    for (size_t i = 0; i < axes.size(); ++i) {
      c.values.push_back(axes[i].values[pick[i]]);
      c.overrides.push_back(axes[i].key + "=" + axes[i].yaml[pick[i]]);
      c.dir += folder_safe(axes[i].name) + "=" + folder_safe(c.values.back()) + ",";
    }
    c.overrides.push_back("seed=" + std::to_string(c.seed));
    c.dir += "seed=" + std::to_string(c.seed);
    out.push_back(std::move(c));
  }
  return out;
}

SweepPlan load_sweep(const std::string& file, const std::optional<std::string>& out,
                     const std::vector<std::string>& overrides) {
  return SweepReader(file).read(out, overrides);
}

}  // namespace fedgrid

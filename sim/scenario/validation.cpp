// Validation of a scenario's YAML tree against the key table: every key declared, of its
// declared type, within its bounds; every problem collected with its file, line and key.
#include "sim/scenario/validation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "sim/scenario/key_table.hpp"
#include "sim/scenario/scenario.hpp"

namespace fedgrid {

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

namespace {

std::string parent_of(const std::string& path) {
  auto dot = path.rfind('.');
  return dot == std::string::npos ? "" : path.substr(0, dot);
}

// The algorithm whose own keys the algorithm: section may give: algorithm.name as written (or set
// by --set), else its default.
std::string named_algorithm(const YAML::Node& root) {
  const YAML::Node& r = root;  // const: looking a key up must not add it
  if (r.IsMap() && r["algorithm"] && r["algorithm"].IsMap()) {
    const YAML::Node& section = r["algorithm"];
    if (section["name"] && section["name"].IsScalar()) return section["name"].Scalar();
  }
  const KeyDecl* name = find_key("algorithm.name");
  return name && name->default_value ? *name->default_value : "";
}

// "a", "a and b", "a, b and c".
std::string and_list(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return s;
}

}  // namespace

// Walks the YAML tree against the key table and collects every problem.
class Validator {
 public:
  Validator(std::string file, std::set<std::string> overridden, std::string algorithm)
      : file_(std::move(file)), overridden_(std::move(overridden)), algorithm_(std::move(algorithm)) {}

  void check_map(const YAML::Node& map, const std::string& prefix, const std::string& concrete) {
    std::set<std::string> seen;
    for (auto it = map.begin(); it != map.end(); ++it) {
      // YAML allows a list or mapping as a key ("? [a, b]: 1"); yaml-cpp cannot read it as a
      // name and threw out of the validator (found by fuzz/fuzz_scenario.cpp).
      if (!it->first.IsScalar()) {
        const std::string here = concrete.empty() ? "(top level)" : concrete;
        add(it->first.Mark().line + 1, concrete, "a key must be a name, not a list or mapping (in " + here + ")", concrete);
        continue;
      }
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
      const KeyDecl* decl = find_key(path, algorithm_);
      if (!decl) {
        // Another algorithm's key would be ignored by this one: say whose it is, and suggest a
        // close key of this algorithm's own. Unset (null: --set algorithm.gamma=null, to run a
        // scenario under another algorithm) it is ignored by none.
        const auto owners = algorithms_declaring(path);
        if (!owners.empty() && it->second.IsNull()) continue;
        const std::string hint = closest_key(path, algorithm_, !owners.empty());
        const std::string did_you_mean = hint.empty() ? "" : " (did you mean '" + hint + "'?)";
        if (!owners.empty())
          add(line, where, "not a key of algorithm '" + algorithm_ + "': only " + and_list(owners) + " declare" +
                               (owners.size() == 1 ? "s" : "") + " it" + did_you_mean, where);
        else
          add(line, where, "unknown key" + did_you_mean, where);
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
            if (k.required && parent_of(k.path) == path + "[]" && find_key(k.path, algorithm_) == &k &&
                !v[i][k.path.substr(path.size() + 3)])
              add(line_of(v[i], item), item + "." + k.path.substr(path.size() + 3), "required key is missing", item);
        }
        return;
      case KeyType::ModelChoice:
        if (v.IsMap()) return check_map(v, path, where);
        if (v.IsSequence()) return wrong(describe(v));
        break;  // a scalar: an arch name, checked below
      case KeyType::IntList:
        if (!v.IsSequence() || v.size() == 0) return wrong(describe(v));
        return check_ints(decl, v, where, where);
      case KeyType::IntTable:
        if (!v.IsSequence() || v.size() == 0) return wrong(describe(v));
        for (size_t r = 0; r < v.size(); ++r) {
          const std::string row = where + "[" + std::to_string(r) + "]";
          if (!v[r].IsSequence() || v[r].size() == 0) {
            add(line_of(v[r], row), row, "expected a list of integers, got " + describe(v[r]), where);
            continue;
          }
          check_ints(decl, v[r], row, where);
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
      if (decl.max && (number > *decl.max || (decl.max_exclusive && number == *decl.max)))
        add(line, where, "must be " + std::string(decl.max_exclusive ? "< " : "<= ") + fmt(*decl.max) + ", got " + text, where);
    }
    if (!decl.allowed.empty() &&
        std::find(decl.allowed.begin(), decl.allowed.end(), text) == decl.allowed.end()) {
      std::string list;
      for (const auto& a : decl.allowed) list += (list.empty() ? "" : ", ") + a;
      add(line, where, "'" + text + "' is not one of: " + list, where);
    }
  }

  // The integers of one list (an IntList, or a row of an IntTable): each an int within decl.min.
  void check_ints(const KeyDecl& decl, const YAML::Node& list, const std::string& at, const std::string& where) {
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string item = at + "[" + std::to_string(i) + "]";
      int64_t x = 0;
      try {
        x = list[i].as<int64_t>();
      } catch (const YAML::Exception&) {
        add(line_of(list[i], item), item, "expected an integer, got " + describe(list[i]), where);
        continue;
      }
      if (decl.min && double(x) < *decl.min)
        add(line_of(list[i], item), item, "must be >= " + fmt(*decl.min) + ", got " + std::to_string(x), where);
      if (x > std::numeric_limits<int>::max() || x < std::numeric_limits<int>::min())  // the list holds ints
        add(line_of(list[i], item), item, "out of range, got " + std::to_string(x), where);
    }
  }

  static std::string fmt(double x) {
    if (x == std::floor(x) && std::abs(x) < 1e15) return std::to_string(int64_t(x));  // a whole bound, all its digits
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
  std::string algorithm_;  // the scenario's: its own algorithm.* keys are the ones it may give
};

std::string closest_key(const std::string& path) { return closest_key(path, ""); }

std::string closest_key(const std::string& path, const std::string& algorithm, bool algorithms_own) {
  std::string best;
  size_t best_d = std::string::npos;
  const std::string leaf = path.substr(path.rfind('.') == std::string::npos ? 0 : path.rfind('.') + 1);
  for (const auto& k : scenario_keys()) {
    if (find_key(k.path, algorithm) != &k) continue;  // another algorithm's (or a later twin of an earlier path)
    if (algorithms_own && k.algorithms.empty()) continue;
    size_t d = edit_distance(path, k.path);
    // A known leaf under another parent is a likely mix-up too (e.g. "training.rounds").
    const std::string kleaf = k.path.substr(k.path.rfind('.') == std::string::npos ? 0 : k.path.rfind('.') + 1);
    if (kleaf == leaf) d = std::min<size_t>(d, 2);
    if (d < best_d) best_d = d, best = k.path;
  }
  return best_d <= std::max<size_t>(3, path.size() / 3) ? best : "";
}

std::vector<InputProblem> validate(const YAML::Node& root, const std::string& file,
                                   const std::set<std::string>& overridden, std::map<std::string, int>& lines) {
  Validator v(file, overridden, named_algorithm(root));
  v.check_map(root, "", "");
  lines = std::move(v.lines_);
  return std::move(v.problems);
}

}  // namespace fedgrid

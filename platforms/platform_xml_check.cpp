#include "platforms/platform_xml_check.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "platforms/platform_error.hpp"
#include "platforms/xml_tree.hpp"

namespace fedgrid::platforms {
namespace {

struct Rule {
  std::set<std::string> required, optional, children;
};

// The elements fedgrid accepts, their attributes and the elements they may hold.
const std::map<std::string, Rule>& rules() {
  static const std::map<std::string, Rule> all{
      {"platform", {{"version"}, {}, {"zone"}}},
      {"zone", {{"id", "routing"}, {}, {"zone", "host", "link", "router", "route", "zoneRoute", "prop"}}},
      {"host", {{"id", "speed"}, {"core", "pstate"}, {"prop"}}},
      {"link", {{"id", "bandwidth"}, {"latency", "sharing_policy"}, {"prop"}}},
      {"router", {{"id"}, {}, {}}},
      {"route", {{"src", "dst"}, {"symmetrical"}, {"link_ctn"}}},
      {"zoneRoute", {{"src", "dst", "gw_src", "gw_dst"}, {"symmetrical"}, {"link_ctn"}}},
      {"link_ctn", {{"id"}, {"direction"}, {}}},
      {"prop", {{"id", "value"}, {}, {}}},
  };
  return all;
}

std::string join(const std::set<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// A number as SimGrid reads one with its unit after it ("1Gf", "20Mbps", "5ms"): the leading
// decimal number. SimGrid itself rejects units it does not know, with an exception.
bool leading_number(const std::string& text, double& value) {
  const char* begin = text.c_str();
  while (*begin == ' ') ++begin;
  if (!*begin || !(std::isdigit(static_cast<unsigned char>(*begin)) || *begin == '.' || *begin == '-' || *begin == '+'))
    return false;  // strtod would also take "inf", "nan" and hex
  char* end = nullptr;
  value = std::strtod(begin, &end);
  return end != begin && std::isfinite(value);
}

// A plain decimal number, nothing after it (wattage figures).
bool plain_number(const std::string& text, double& value) {
  double v = 0;
  if (!leading_number(text, v)) return false;
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  size_t used = size_t(end - text.c_str());
  while (used < text.size() && text[used] == ' ') ++used;
  if (used != text.size()) return false;
  value = v;
  return true;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string part; std::getline(ss, part, sep);) out.push_back(part);
  if (!s.empty() && s.back() == sep) out.emplace_back();
  if (s.empty()) out.emplace_back();
  return out;
}

class Checker {
 public:
  explicit Checker(std::string path) : path_(std::move(path)) {}

  void check(const XmlElement& root) {
    if (root.name != "platform") fail(root, "", "the root element is <" + root.name + ">, expected <platform>");
    declare(root, 0);
    structure(root, 0);
    const std::string version = *root.attribute("version");
    if (version != "4.1" && version != "4")
      fail(root, "version", "platform version '" + version + "' is not supported (fedgrid reads version 4.1)");
    if (root.children.size() != 1) fail(root, "", "a platform holds exactly one top-level <zone>");
    values(root);
  }

 private:
  [[noreturn]] void fail(const XmlElement& e, const std::string& key, const std::string& message) const {
    const std::string* id = e.attribute("id");
    const std::string who = "<" + e.name + (id ? " id='" + *id + "'" : "") + ">";
    throw PlatformError(path_, e.line, key, who + ": " + message);
  }

  // Names declared anywhere (SimGrid resolves them as it reads; the check only needs them to exist).
  void declare(const XmlElement& e, int depth) {
    if (const std::string* id = e.attribute("id")) {
      if (e.name == "host" || e.name == "router") netpoints_.insert(*id);
      if (e.name == "zone") zones_.insert(*id);
      if (e.name == "link") {
        const std::string* policy = e.attribute("sharing_policy");
        (policy && *policy == "SPLITDUPLEX" ? split_links_ : links_).insert(*id);
      }
    }
    for (const auto& c : e.children) declare(*c, depth + 1);
  }

  void structure(const XmlElement& e, int depth) {
    const auto rule = rules().find(e.name);
    if (rule == rules().end())
      fail(e, "", "element not supported in fedgrid's platforms (supported: " + join([] {
             std::set<std::string> names;
             for (const auto& [n, r] : rules()) names.insert(n);
             return names;
           }()) + ")");
    for (const auto& required : rule->second.required)
      if (!e.attribute(required)) fail(e, required, "missing attribute '" + required + "'");
    for (const auto& [key, value] : e.attributes)
      if (!rule->second.required.count(key) && !rule->second.optional.count(key))
        fail(e, key, "attribute not supported here (<" + e.name + "> takes " +
                         join([&] {
                           std::set<std::string> all = rule->second.required;
                           all.insert(rule->second.optional.begin(), rule->second.optional.end());
                           return all;
                         }()) + ")");
    for (const auto& c : e.children)
      if (!rule->second.children.count(c->name) && rules().count(c->name))
        fail(*c, "", "not allowed inside <" + e.name + ">" +
                         (rule->second.children.empty() ? "" : " (it holds " + join(rule->second.children) + ")"));
    for (const auto& c : e.children) structure(*c, depth + 1);
  }

  void one_of(const XmlElement& e, const std::string& key, const std::set<std::string>& allowed) const {
    const std::string* v = e.attribute(key);
    if (v && !allowed.count(*v)) fail(e, key, "'" + *v + "' is not one of " + join(allowed));
  }

  void values(const XmlElement& e) {
    if (e.name == "zone") one_of(e, "routing", {"Full", "Floyd", "Dijkstra", "DijkstraCache"});
    if (e.name == "host") host(e);
    if (e.name == "link") link(e);
    if (e.name == "route" || e.name == "zoneRoute") {
      one_of(e, "symmetrical", {"YES", "NO", "yes", "no"});
      for (const char* end : {"src", "dst"}) {
        const std::string& name = *e.attribute(end);
        if (e.name == "route" ? !netpoints_.count(name) : !zones_.count(name))
          fail(e, end, "no " + std::string(e.name == "route" ? "host or router" : "zone") + " named '" + name + "'");
      }
      if (e.name == "zoneRoute")
        for (const char* gateway : {"gw_src", "gw_dst"})
          if (!netpoints_.count(*e.attribute(gateway)))
            fail(e, gateway, "no host or router named '" + *e.attribute(gateway) + "'");
    }
    if (e.name == "link_ctn") link_ctn(e);
    for (const auto& c : e.children) values(*c);
  }

  void host(const XmlElement& e) {
    const auto speeds = split(*e.attribute("speed"), ',');
    for (const auto& s : speeds) {
      double v = 0;
      if (!leading_number(s, v) || !(v > 0))
        fail(e, "speed", "each speed must be a positive number with its unit (e.g. 2Gf), got '" + s + "'");
    }
    if (const std::string* core = e.attribute("core")) {
      if (core->empty() || core->size() > 9 || core->find_first_not_of("0123456789") != std::string::npos ||
          std::stol(*core) < 1)
        fail(e, "core", "the core count must be a positive integer, got '" + *core + "'");
    }
    if (const std::string* pstate = e.attribute("pstate")) {
      if (pstate->empty() || pstate->size() > 9 || pstate->find_first_not_of("0123456789") != std::string::npos ||
          std::stoul(*pstate) >= speeds.size())
        fail(e, "pstate", "the initial pstate must index one of the " + std::to_string(speeds.size()) +
                              " speeds (0.." + std::to_string(speeds.size() - 1) + "), got '" + *pstate + "'");
    }
    for (const auto& c : e.children) {
      const std::string& id = *c->attribute("id");
      const std::string& value = *c->attribute("value");
      if (id == "wattage_per_state") wattage_per_state(*c, value, speeds.size());
      double v = 0;
      if (id == "wattage_off" && (!plain_number(value, v) || v < 0))
        fail(*c, "wattage_off", "expected a non-negative number of watts, got '" + value + "'");
    }
  }

  // SimGrid's energy plugin: one "idle:all-cores" or "idle:one-core:all-cores" per pstate,
  // separated by commas; anything else aborts it.
  void wattage_per_state(const XmlElement& prop, const std::string& value, size_t pstates) {
    const auto profiles = split(value, ',');
    if (profiles.size() != pstates)
      fail(prop, "wattage_per_state", std::to_string(profiles.size()) + " power profile(s) for " +
                                          std::to_string(pstates) + " speed(s): give one idle:busy per speed");
    for (const auto& profile : profiles) {
      const auto figures = split(profile, ':');
      double v = 0;
      bool ok = figures.size() == 2 || figures.size() == 3;
      for (const auto& f : figures) ok = ok && plain_number(f, v) && v >= 0;
      if (!ok)
        fail(prop, "wattage_per_state",
             "expected idle:busy or idle:one-core:all-cores watts (non-negative numbers), got '" + profile + "'");
    }
  }

  void link(const XmlElement& e) {
    double v = 0;
    const std::string& bandwidth = *e.attribute("bandwidth");
    if (!leading_number(bandwidth, v) || !(v > 0))
      fail(e, "bandwidth", "must be a positive number with its unit (e.g. 1Gbps), got '" + bandwidth + "'");
    if (const std::string* latency = e.attribute("latency"))
      if (!leading_number(*latency, v) || v < 0)
        fail(e, "latency", "must be a non-negative number with its unit (e.g. 5ms), got '" + *latency + "'");
    one_of(e, "sharing_policy", {"SHARED", "SPLITDUPLEX", "FATPIPE"});
  }

  void link_ctn(const XmlElement& e) {
    const std::string& id = *e.attribute("id");
    one_of(e, "direction", {"UP", "DOWN", "NONE"});
    const std::string* direction = e.attribute("direction");
    if (split_links_.count(id)) {
      if (!direction || *direction == "NONE")
        fail(e, "direction", "link '" + id + "' is SPLITDUPLEX: say direction UP or DOWN");
    } else if (!links_.count(id)) {
      fail(e, "id", "no link named '" + id + "'");
    }
  }

  std::string path_;
  std::set<std::string> netpoints_, zones_, links_, split_links_;
};

}  // namespace

void check_platform_xml_text(const std::string& text, const std::string& path) {
  std::unique_ptr<XmlElement> root;
  try {
    root = parse_xml(text);
  } catch (const XmlSyntaxError& e) {
    throw PlatformError(path, e.line, "platform.xml", "not well-formed XML: " + e.message);
  }
  Checker(path).check(*root);
}

void check_platform_xml(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw PlatformError(path, 0, "platform.xml", "platform file not found");
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path, ec)) throw PlatformError(path, 0, "platform.xml", "cannot read the platform file");
  std::stringstream ss;
  ss << in.rdbuf();
  check_platform_xml_text(ss.str(), path);
}

}  // namespace fedgrid::platforms

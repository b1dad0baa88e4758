#include "platforms/platform_xml_check.hpp"

#include <algorithm>
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
      {"platform", {{"version"}, {}, {"zone", "cluster"}}},
      {"zone",
       {{"id", "routing"},
        {},
        {"zone", "cluster", "host", "link", "router", "route", "zoneRoute", "prop", "host_link", "backbone", "cabinet"}}},
      {"host_link", {{"id", "up", "down"}, {}, {}}},
      {"backbone", {{"id", "bandwidth", "latency"}, {}, {}}},
      {"cabinet", {{"id", "prefix", "suffix", "radical", "speed", "bw", "lat"}, {}, {}}},
      {"cluster",
       {{"id", "prefix", "suffix", "radical", "speed", "bw", "lat"},
        {"core", "sharing_policy", "topology", "topo_parameters", "bb_bw", "bb_lat", "bb_sharing_policy", "router_id",
         "limiter_link", "loopback_bw", "loopback_lat"},
        {"prop"}}},
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

// Most hosts fedgrid lets one <cluster> declare (SimGrid would build them all before running).
constexpr size_t kMaxClusterHosts = 1'000'000;

// Digits only, short enough for std::stol: SimGrid's std::stoi would take "3x" as 3, and die
// on what overflows.
bool small_count(const std::string& text) {
  return !text.empty() && text.size() <= 9 && text.find_first_not_of("0123456789") == std::string::npos;
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

  // Returns the host names in the order the file declares them.
  std::vector<std::string> check(const XmlElement& root) {
    if (root.name != "platform") fail(root, "", "the root element is <" + root.name + ">, expected <platform>");
    structure(root, 0);
    declare(root, 0);
    const std::string version = *root.attribute("version");
    if (version != "4.1" && version != "4")
      fail(root, "version", "platform version '" + version + "' is not supported (fedgrid reads version 4.1)");
    if (root.children.size() != 1) fail(root, "", "a platform holds exactly one top-level <zone> or <cluster>");
    values(root);
    return hosts_;
  }

 private:
  [[noreturn]] void fail(const XmlElement& e, const std::string& key, const std::string& message) const {
    const std::string* id = e.attribute("id");
    const std::string who = "<" + e.name + (id ? " id='" + *id + "'" : "") + ">";
    throw PlatformError(path_, e.line, key, who + ": " + message);
  }

  // Names declared anywhere (SimGrid resolves them as it reads; the check only needs them to exist).
  void declare(const XmlElement& e, int depth) {
    if (e.name == "cluster") declare_cluster(e);
    if (e.name == "cabinet")
      for (long r : cluster_radicals(e)) {
        const std::string host = *e.attribute("prefix") + std::to_string(r) + *e.attribute("suffix");
        netpoints_.insert(host), hosts_.push_back(host);
        links_.insert("link_" + host + "_UP"), links_.insert("link_" + host + "_DOWN");
      }
    if (e.name == "backbone") links_.insert(*e.attribute("id"));
    if (const std::string* id = e.attribute("id")) {
      if (e.name == "host" || e.name == "router") netpoints_.insert(*id);
      if (e.name == "host") hosts_.push_back(*id);
      if (e.name == "zone") zones_.insert(*id);
      if (e.name == "link") {
        const std::string* policy = e.attribute("sharing_policy");
        const bool split = policy && (*policy == "SPLITDUPLEX" || *policy == "FULLDUPLEX");
        (split ? split_links_ : links_).insert(*id);
        if (split) split_halves_.insert({*id + "_UP", *id + "_DOWN"});
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
    if (e.name == "zone") zone(e);
    if (e.name == "host") host(e);
    if (e.name == "cluster") cluster(e);
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

  // What each routing holds. SimGrid dies (rather than throws) on a host of a Cluster zone
  // without its host_link, on a route asked of a None zone, on a host_link outside a Cluster.
  void zone(const XmlElement& e) {
    one_of(e, "routing", {"Full", "Floyd", "Dijkstra", "DijkstraCache", "Cluster", "None"});
    const std::string& routing = *e.attribute("routing");
    const std::set<std::string> star_only{"host_link", "backbone", "cabinet"};
    std::set<std::string> allowed{"prop", "host", "router"};
    if (routing == "Cluster") allowed.insert({"link", "host_link", "backbone", "cabinet"});
    else if (routing != "None") allowed.insert({"zone", "cluster", "link", "route", "zoneRoute"});
    std::set<std::string> hosts, linked;
    int netpoints = 0, backbones = 0;
    const XmlElement* zones = nullptr;
    const XmlElement* machines = nullptr;
    for (const auto& c : e.children) {
      if (c->name == "zone" || c->name == "cluster" || c->name == "zoneRoute") zones = c.get();
      if (c->name == "host" || c->name == "router" || c->name == "route") machines = c.get();
      if (zones && machines)  // SimGrid's grammar: one or the other
        fail(*c, "", "a zone holds either sub-zones and clusters (joined by <zoneRoute>) or hosts and routers (joined "
                     "by <route>), not both: put <" + machines->name + "> (line " + std::to_string(machines->line) +
                     ") in a zone of its own");
      if (!allowed.count(c->name))
        fail(*c, "", star_only.count(c->name) ? "only a zone with routing=\"Cluster\" holds <" + c->name + ">"
                     : routing == "None"      ? "a zone with routing=\"None\" holds one host or router, nothing else"
                                              : "a zone with routing=\"Cluster\" holds hosts, routers, links, host_link, "
                                                "backbone and cabinet, not <" + c->name + ">");
      if (c->name == "host") hosts.insert(*c->attribute("id"));
      if (c->name == "host" || c->name == "router") ++netpoints;
      if (c->name == "backbone" && ++backbones > 1) fail(*c, "", "a Cluster zone has one backbone");
    }
    if (routing == "None" && netpoints > 1)
      fail(e, "routing", "a zone with routing=\"None\" has no routes, so it holds one host or router, not " +
                             std::to_string(netpoints));
    if (routing != "Cluster") return;
    for (const auto& c : e.children) {
      if (c->name == "cabinet") cabinet(*c);
      if (c->name == "backbone") {
        positive_rate(*c, "bandwidth", false);
        delay(*c, "latency", false);
      }
      if (c->name != "host_link") continue;
      const std::string& host = *c->attribute("id");
      if (!hosts.count(host)) fail(*c, "id", "no host named '" + host + "' in zone '" + *e.attribute("id") + "'");
      if (!linked.insert(host).second) fail(*c, "id", "host '" + host + "' has a host_link already");
      for (const char* end : {"up", "down"})
        if (!links_.count(*c->attribute(end)) && !split_halves_.count(*c->attribute(end)))
          fail(*c, end, "no link named '" + *c->attribute(end) + "' (a SPLITDUPLEX link L is L_UP and L_DOWN)");
    }
    for (const auto& host : hosts)
      if (!linked.count(host))
        fail(e, "host_link", "host '" + host + "' of Cluster zone '" + *e.attribute("id") +
                                 "' has no <host_link>: it would have no route");
  }

  void cabinet(const XmlElement& e) {
    if (speeds(e) != 1) fail(e, "speed", "a cabinet's hosts have one speed");
    positive_rate(e, "bw", false);
    delay(e, "lat", false);
  }

  // A comma-separated list of speeds, one per pstate; returns how many.
  size_t speeds(const XmlElement& e) const {
    const auto all = split(*e.attribute("speed"), ',');
    for (const auto& s : all) {
      double v = 0;
      if (!leading_number(s, v) || !(v > 0))
        fail(e, "speed", "each speed must be a positive number with its unit (e.g. 2Gf), got '" + s + "'");
    }
    return all.size();
  }

  void core_count(const XmlElement& e) const {
    if (const std::string* core = e.attribute("core"))
      if (!small_count(*core) || std::stol(*core) < 1)
        fail(e, "core", "the core count must be a positive integer, got '" + *core + "'");
  }

  // wattage_per_state and wattage_off among the element's <prop>s.
  void power(const XmlElement& e, size_t pstates) {
    for (const auto& c : e.children) {
      const std::string& id = *c->attribute("id");
      const std::string& value = *c->attribute("value");
      if (id == "wattage_per_state") wattage_per_state(*c, value, pstates);
      double v = 0;
      if (id == "wattage_off" && (!plain_number(value, v) || v < 0))
        fail(*c, "wattage_off", "expected a non-negative number of watts, got '" + value + "'");
    }
  }

  void host(const XmlElement& e) {
    const size_t pstates = speeds(e);
    core_count(e);
    if (const std::string* pstate = e.attribute("pstate")) {
      if (!small_count(*pstate) || std::stoul(*pstate) >= pstates)
        fail(e, "pstate", "the initial pstate must index one of the " + std::to_string(pstates) +
                              " speeds (0.." + std::to_string(pstates - 1) + "), got '" + *pstate + "'");
    }
    power(e, pstates);
  }

  // <cluster>: SimGrid builds its hosts and links itself; what it would die on is checked here
  // (topology parameters it parses with xbt_die or std::stoi, radicals it runs out of).
  void cluster(const XmlElement& e) {
    const size_t pstates = speeds(e);
    core_count(e);
    power(e, pstates);
    positive_rate(e, "bw", false);
    delay(e, "lat", false);
    positive_rate(e, "bb_bw", true);
    delay(e, "bb_lat", true);
    positive_rate(e, "limiter_link", true);
    positive_rate(e, "loopback_bw", true);
    delay(e, "loopback_lat", true);
    one_of(e, "sharing_policy", {"SHARED", "SPLITDUPLEX", "FULLDUPLEX", "FATPIPE"});
    one_of(e, "bb_sharing_policy", {"SHARED", "FATPIPE"});
    one_of(e, "topology", {"FLAT", "TORUS", "FAT_TREE", "DRAGONFLY"});
    const std::string* topology = e.attribute("topology");
    const std::string* parameters = e.attribute("topo_parameters");
    if (!topology || *topology == "FLAT") {
      if (parameters && !parameters->empty())
        fail(e, "topo_parameters", "only TORUS, FAT_TREE and DRAGONFLY clusters take topology parameters");
      return;
    }
    for (const char* key : {"bb_bw", "bb_lat", "router_id"})
      if (const std::string* v = e.attribute(key); v && !v->empty())
        fail(e, key, "a " + *topology + " cluster has no backbone or router (only FLAT clusters do)");
    const size_t nodes = topology_nodes(e, *topology, parameters ? *parameters : "");
    const size_t radicals = cluster_radicals(e).size();
    if (nodes != radicals)
      fail(e, "radical", "the " + *topology + " topology holds " + std::to_string(nodes) + " nodes but the radical names " +
                             std::to_string(radicals) + " hosts: give exactly one radical per node");
  }

  void positive_rate(const XmlElement& e, const std::string& key, bool optional) const {
    const std::string* v = e.attribute(key);
    if (!v || (optional && v->empty())) return;
    double x = 0;
    if (!leading_number(*v, x) || !(x > 0))
      fail(e, key, "must be a positive number with its unit (e.g. 1Gbps), got '" + *v + "'");
  }

  void delay(const XmlElement& e, const std::string& key, bool optional) const {
    const std::string* v = e.attribute(key);
    if (!v || (optional && v->empty())) return;
    double x = 0;
    if (!leading_number(*v, x) || x < 0)
      fail(e, key, "must be a non-negative number with its unit (e.g. 5ms), got '" + *v + "'");
  }

  // The nodes a hierarchical cluster's topology holds, its parameters written as SimGrid reads
  // them: TORUS "x,y,z"; FAT_TREE "levels;down,..;up,..;ports,.."; DRAGONFLY
  // "groups,links;chassis,links;routers,links;nodes".
  size_t topology_nodes(const XmlElement& e, const std::string& topology, const std::string& text) const {
    auto bad = [&](const std::string& why) {
      const char* form = topology == "TORUS"      ? "x,y,z (nodes per dimension)"
                         : topology == "FAT_TREE" ? "levels;down,..;up,..;ports,.. (one figure per level)"
                                                  : "groups,links;chassis,links;routers,links;nodes";
      fail(e, "topo_parameters", "'" + text + "': " + why + " (a " + topology + " cluster takes " + form + ")");
    };
    auto counts = [&](const std::string& part) {
      std::vector<size_t> out;
      for (const auto& f : split(part, ',')) {
        if (!small_count(f) || std::stoul(f) < 1) bad("'" + f + "' is not a positive integer");
        out.push_back(std::stoul(f));
      }
      return out;
    };
    auto product = [&](const std::vector<size_t>& v) {
      size_t p = 1;
      for (size_t x : v)
        if ((p *= x) > kMaxClusterHosts) bad("more than " + std::to_string(kMaxClusterHosts) + " nodes");
      return p;
    };
    if (topology == "TORUS") {
      const auto dims = counts(text);
      // Each dimension of size 1 links a node to itself under one name: two of them abort SimGrid.
      if (std::count(dims.begin(), dims.end(), size_t(1)) > 1) bad("at most one dimension may be 1");
      return product(dims);
    }
    const auto parts = split(text, ';');
    if (topology == "FAT_TREE") {
      if (parts.size() != 4) bad("four parts separated by ';'");
      const size_t levels = counts(parts[0]).at(0);
      if (counts(parts[0]).size() != 1) bad("the first part is the number of levels");
      for (size_t i = 1; i < 4; ++i)
        if (counts(parts[i]).size() != levels)
          bad("part " + std::to_string(i + 1) + " has " + std::to_string(counts(parts[i]).size()) + " figures for " +
              std::to_string(levels) + " levels");
      return product(counts(parts[1]));
    }
    if (parts.size() != 4) bad("four parts separated by ';'");
    for (size_t i = 0; i < 3; ++i)
      if (counts(parts[i]).size() != 2) bad("part " + std::to_string(i + 1) + " is a count and a link count");
    if (counts(parts[3]).size() != 1) bad("the last part is the number of nodes per blade");
    // SimGrid links router n of each group's first chassis to group n (and dies without it).
    if (const size_t groups = counts(parts[0])[0], routers = counts(parts[2])[0]; groups > 1 && routers < groups)
      bad(std::to_string(groups) + " groups need at least " + std::to_string(groups) + " routers per chassis");
    return product({counts(parts[0])[0], counts(parts[1])[0], counts(parts[2])[0], counts(parts[3])[0]});
  }

  // "0-99,102": the numbers that name a cluster's hosts (prefix + number + suffix).
  std::vector<long> cluster_radicals(const XmlElement& e) const {
    const std::string& text = *e.attribute("radical");
    std::vector<long> out;
    for (const auto& group : split(text, ',')) {
      const auto ends = split(group, '-');
      if (ends.size() > 2 || !small_count(ends.front()) || !small_count(ends.back()))
        fail(e, "radical", "'" + group + "' is neither a number nor a range first-last (e.g. 0-99,102), in '" + text + "'");
      const long first = std::stol(ends.front()), last = std::stol(ends.back());
      if (last < first) fail(e, "radical", "the range '" + group + "' ends before it starts");
      if (out.size() + size_t(last - first + 1) > kMaxClusterHosts)
        fail(e, "radical", "more than " + std::to_string(kMaxClusterHosts) + " hosts in one cluster");
      for (long i = first; i <= last; ++i) out.push_back(i);
    }
    return out;
  }

  // A cluster declares its hosts, its router (FLAT), its links and itself as a zone.
  void declare_cluster(const XmlElement& e) {
    const std::string &id = *e.attribute("id"), &prefix = *e.attribute("prefix"), &suffix = *e.attribute("suffix");
    zones_.insert(id);
    const std::string* topology = e.attribute("topology");
    const std::string* policy = e.attribute("sharing_policy");
    const bool split_duplex = !policy || *policy == "SPLITDUPLEX" || *policy == "FULLDUPLEX";
    for (long r : cluster_radicals(e)) {
      netpoints_.insert(prefix + std::to_string(r) + suffix), hosts_.push_back(prefix + std::to_string(r) + suffix);
      const std::string link = id + "_link_" + std::to_string(r);
      (split_duplex ? split_links_ : links_).insert(link);
      if (split_duplex) split_halves_.insert({link + "_UP", link + "_DOWN"});
    }
    if (!topology || *topology == "FLAT") {
      const std::string* router = e.attribute("router_id");
      netpoints_.insert(router && !router->empty() ? *router : prefix + id + "_router" + suffix);
      links_.insert(id + "_backbone");
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
    positive_rate(e, "bandwidth", false);
    delay(e, "latency", false);
    one_of(e, "sharing_policy", {"SHARED", "SPLITDUPLEX", "FULLDUPLEX", "FATPIPE"});
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
  std::set<std::string> netpoints_, zones_, links_, split_links_, split_halves_;
  std::vector<std::string> hosts_;  // in declaration order
};

}  // namespace

std::vector<std::string> check_platform_xml_text(const std::string& text, const std::string& path) {
  std::unique_ptr<XmlElement> root;
  try {
    root = parse_xml(text);
  } catch (const XmlSyntaxError& e) {
    throw PlatformError(path, e.line, "platform.xml", "not well-formed XML: " + e.message);
  }
  return Checker(path).check(*root);
}

std::vector<std::string> check_platform_xml(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw PlatformError(path, 0, "platform.xml", "platform file not found");
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path, ec)) throw PlatformError(path, 0, "platform.xml", "cannot read the platform file");
  std::stringstream ss;
  ss << in.rdbuf();
  return check_platform_xml_text(ss.str(), path);
}

}  // namespace fedgrid::platforms

// platform.*: its keys, its cross-key rules, the rules of a drawn figure, and the hospital
// groups a tier ratio makes.
#include <algorithm>
#include <sstream>

#include "sim/scenario/sections/parts.hpp"

namespace fedgrid {
namespace sections {
namespace {

// platform.hospitals[].vary.<figure>: one distribution per figure, read whole from its `dist`.
void vary_keys(KeySet<HospitalGroup>& k) {
  using G = HospitalGroup;
  k.group("vary", "Figures each hospital of the group draws from a distribution, seeded by the scenario seed "
                  "(speed_flops, uplink_bps, downlink_bps, latency_s; samples with training.mode timing-only)");
  for (const std::string figure : {"speed_flops", "uplink_bps", "downlink_bps", "latency_s", "samples"}) {
    const std::string at = "vary." + figure;
    k.group(at, "Distribution of " + figure + " over this group's hospitals");
    k.custom(at + ".dist", KeyType::String, none,
             "lognormal (median, sigma), uniform (min, max) or empirical (file, column: values resampled)",
             {.allowed = mode_names<FigureDist>(), .required = true},
             [at, figure](G& g, const KeyValues& from) {
               if (!from.given(at + ".dist")) return;  // every reader runs; this figure is not drawn
               FigureDraw d;
               d.dist = *mode_named<FigureDist>(*from.value<std::string>(at + ".dist"));
               d.median = from.value<double>(at + ".median");
               d.sigma = from.value<double>(at + ".sigma");
               d.min = from.value<double>(at + ".min");
               d.max = from.value<double>(at + ".max");
               d.file = from.value<std::string>(at + ".file").value_or("");
               d.column = from.value<std::string>(at + ".column").value_or(figure);
               g.vary[figure] = d;
             });
    k.custom(at + ".median", KeyType::Float, none, "lognormal: the median (e^mu)", {.min = 0, .min_exclusive = true}, {});
    k.custom(at + ".sigma", KeyType::Float, none, "lognormal: the standard deviation of the logarithm", {.min = 0}, {});
    k.custom(at + ".min", KeyType::Float, none, "uniform: the lower end; lognormal, empirical: draws below are raised to it",
             {.min = 0}, {});
    k.custom(at + ".max", KeyType::Float, none, "uniform: the upper end; lognormal, empirical: draws above are lowered to it",
             {.min = 0}, {});
    k.custom(at + ".file", KeyType::String, none, "empirical: CSV of observed values (relative to the scenario file)", {}, {});
    k.custom(at + ".column", KeyType::String, none, "empirical: the column holding them (default: the figure's name)", {}, {});
  }
}

// A hospital group's own model: its arch or width left empty/0 mean "the global model's",
// filled in once model.* is read (the key readers run before the items are completed).
KeySet<HospitalGroup> hospital_group_keys() {
  using G = HospitalGroup;
  KeySet<G> k;
  k.add("count", &G::count, "1", "Number of hospitals in this group", {.min = 1})
      .add("tier", &G::tier, none, "Tier of this group (see `fedgrid list tiers`)", {.required = true})
      .add("name", &G::name, none, "Name prefix of this group's hospitals (default: the tier)")
      .bind<double>("speed_flops", [](G& g) -> auto& { return g.speed_flops; }, none,
                    "Override: effective training FLOP/s", {.min = 0, .min_exclusive = true})
      .bind<double>("uplink_bps", [](G& g) -> auto& { return g.uplink_bps; }, none, "Override: uplink bandwidth, bit/s",
                    {.min = 0, .min_exclusive = true})
      .bind<double>("downlink_bps", [](G& g) -> auto& { return g.downlink_bps; }, none,
                    "Override: downlink bandwidth, bit/s", {.min = 0, .min_exclusive = true})
      .bind<double>("latency_s", [](G& g) -> auto& { return g.latency_s; }, none,
                    "Override: one-way access-link latency, s", {.min = 0})
      .bind<std::string>("profile_device", [](G& g) -> auto& { return g.profile_device; }, none,
                         "timing.compute profile: the profiled device these hospitals run on (default: the tier's)")
      .bind<double>("speed_factor", [](G& g) -> auto& { return g.speed_factor; }, none,
                    "timing.compute profile: speed relative to that device, seconds = profiled / factor (default: the tier's, else 1)",
                    {.min = 0, .min_exclusive = true})
      .custom("model", KeyType::ModelChoice, none,
              "This group's own model where every hospital keeps one (local, fedskd): an arch, or {arch, width_multiplier}",
              {.allowed = arch_names()},
              [](G& g, const KeyValues& from) { g.model = model_choice(from, "model", {"", 0}); })
      .custom("model.arch", KeyType::String, none, "Architecture of this group's model (default: model.arch)",
              {.allowed = arch_names()}, {})
      .custom("model.width_multiplier", KeyType::Float, none,
              "Width of this group's model (default: model.width_multiplier)",
              {.min = 0, .max = kMaxWidth, .min_exclusive = true}, {});
  vary_keys(k);
  return k;
}

KeySet<XmlTierRule> xml_tier_keys() {
  using R = XmlTierRule;
  return KeySet<R>()
      .add("hosts", &R::hosts, none, "Host name or glob pattern (e.g. node-*.site)", {.required = true})
      .add("tier", &R::tier, none, "Tier of the hosts it matches (see `fedgrid list tiers`)", {.required = true});
}

}  // namespace

void platform_keys(Keys& k) {
  using S = Scenario;
  k.group("platform", "The simulated machines and network")
      .bind<std::string>("platform.tiers", [](S& s) -> auto& { return s.platform.tiers_file; }, none,
                         "Tier catalog YAML (default: platforms/tiers.yaml)")
      .group("platform.server", "The aggregation server")
      .bind<std::string>("platform.server.tier", [](S& s) -> auto& { return s.platform.server_tier; }, "cloud",
                         "Tier of the server host (with platform.xml: when the host has no 'tier' property)")
      .bind<std::string>("platform.server.host", [](S& s) -> auto& { return s.platform.server_host; }, "server",
                         "With platform.xml: name of the server host in the XML")
      .bind<std::string>("platform.server.profile_device",
                         [](S& s) -> auto& { return s.platform.server_profile_device; }, none,
                         "timing.compute profile: the profiled device the server runs on (default: its tier's)")
      .bind<double>("platform.server.speed_factor", [](S& s) -> auto& { return s.platform.server_speed_factor; }, none,
                    "timing.compute profile: the server's speed relative to that device (default: its tier's, else 1)",
                    {.min = 0, .min_exclusive = true})
      .bind<double>("platform.server.speed_flops", [](S& s) -> auto& { return s.platform.server_speed_flops; }, none,
                    "Override: the server's effective FLOP/s (default: its tier's)", {.min = 0, .min_exclusive = true})
      .bind<double>("platform.server.uplink_bps", [](S& s) -> auto& { return s.platform.server_uplink_bps; }, none,
                    "Override: the server's uplink bandwidth, bit/s (default: its tier's)",
                    {.min = 0, .min_exclusive = true})
      .bind<double>("platform.server.downlink_bps", [](S& s) -> auto& { return s.platform.server_downlink_bps; }, none,
                    "Override: the server's downlink bandwidth, bit/s (default: its tier's)",
                    {.min = 0, .min_exclusive = true})
      .bind<double>("platform.server.latency_s", [](S& s) -> auto& { return s.platform.server_latency_s; }, none,
                    "Override: the server's one-way access-link latency, s (default: its tier's)", {.min = 0})
      .bind_list<HospitalGroup>("platform.hospitals", [](S& s) -> auto& { return s.platform.hospitals; },
                                "Hospital groups: {count, tier} plus optional overrides", hospital_group_keys())
      .bind<std::string>("platform.roster", [](S& s) -> auto& { return s.platform.roster; }, none,
                         "Roster CSV, one hospital per row (name,tier[,speed_flops,uplink_bps,downlink_bps,latency_s,profile_device,speed_factor,samples]); replaces hospitals")
      .bind<std::string>("platform.xml", [](S& s) -> auto& { return s.platform.xml; }, none,
                         "SimGrid XML platform, as SimGrid loads it; platform.server.host is the server, platform.xml_hospitals the hospitals")
      .bind<std::string>("platform.xml_hospitals", [](S& s) -> auto& { return s.platform.xml_hospitals; }, none,
                         "With platform.xml: the hospital hosts, names or glob patterns separated by commas (default: every host but the server)")
      .bind_list<XmlTierRule>("platform.xml_tiers", [](S& s) -> auto& { return s.platform.xml_tiers; },
                              "With platform.xml: tiers of hosts without a 'tier' property, [{hosts: PATTERN, tier: NAME}], the first match wins",
                              xml_tier_keys())
      .bind<std::string>("platform.tier_ratio", [](S& s) -> auto& { return s.platform.tier_ratio; }, none,
                         "weak:medium:strong hospital counts in this ratio (e.g. 7:2:1), with platform.hospital_count; replaces hospitals")
      .bind<int>("platform.hospital_count", [](S& s) -> auto& { return s.platform.hospital_count; }, none,
                 "With platform.tier_ratio: number of hospitals (a multiple of the ratio's sum)", {.min = 1})
      .group("platform.backbone", "The shared backbone every access link joins")
      .bind<double>("platform.backbone.bandwidth_bps", [](S& s) -> auto& { return s.platform.backbone_bandwidth_bps; },
                    "100e9", "Backbone bandwidth, bit/s", {.min = 0, .min_exclusive = true})
      .bind<double>("platform.backbone.latency_s", [](S& s) -> auto& { return s.platform.backbone_latency_s; }, "0",
                    "Backbone latency, s", {.min = 0});
}

namespace {

// Hospitals come from platform.hospitals, a roster or an XML platform; a tier ratio that fits
// fills platform.hospitals once the rules hold (scenario.cpp).
bool hospitals_listed(const Scenario::Platform& p) { return !p.hospitals.empty() || !p.roster.empty() || !p.xml.empty(); }

}  // namespace

Rules platform_hospital_rules() {
  using S = const Scenario&;
  return {
      {{"platform.tier_ratio", "platform.hospitals", "platform.roster", "platform.xml"},
       [](S s) { return !s.platform.tier_ratio.empty() && hospitals_listed(s.platform); },
       says("give either platform.tier_ratio or platform.hospitals/roster/xml, not both")},
      {{"platform.tier_ratio", "platform.hospital_count"},
       [](S s) {
         const auto& p = s.platform;
         return !p.tier_ratio.empty() && !hospitals_listed(p) && !tier_ratio_groups(p.tier_ratio, p.hospital_count);
       },
       [](S s) {
         const auto& p = s.platform;
         return "expected weak:medium:strong non-negative integers (e.g. 7:2:1) with platform.hospital_count a "
                "positive multiple of their sum, got '" +
                p.tier_ratio + "' and " + (p.hospital_count ? std::to_string(*p.hospital_count) : "no count");
       }},
      {{"platform.hospital_count", "platform.tier_ratio"},
       [](S s) { return s.platform.tier_ratio.empty() && s.platform.hospital_count.has_value(); },
       says("needs platform.tier_ratio")},
      {{"platform.hospitals", "platform.roster", "platform.xml", "platform.tier_ratio"},
       [](S s) {
         const auto& p = s.platform;
         return !hospitals_listed(p) && !(!p.tier_ratio.empty() && tier_ratio_groups(p.tier_ratio, p.hospital_count));
       },
       says("no hospitals: give platform.hospitals, platform.roster or platform.xml")},
      {{"platform.roster", "platform.hospitals"},
       [](S s) { return !s.platform.hospitals.empty() && !s.platform.roster.empty(); },
       says("give either platform.hospitals or platform.roster, not both")},
  };
}

const std::string kXmlServer = "overrides the generated star's server; with platform.xml edit the server host there";

Rules platform_xml_rules() {
  using S = const Scenario&;
  return {
      {{"platform.xml_hospitals", "platform.xml"},
       [](S s) { return s.platform.xml.empty() && !s.platform.xml_hospitals.empty(); },
       says("is read only with platform.xml")},
      {{"platform.xml_tiers", "platform.xml"}, [](S s) { return s.platform.xml.empty() && !s.platform.xml_tiers.empty(); },
       says("is read only with platform.xml")},
      // An XML platform's server is the host the XML describes: edit the XML instead.
      {{"platform.server.speed_flops", "platform.xml"},
       [](S s) { return !s.platform.xml.empty() && s.platform.server_speed_flops; }, says(kXmlServer)},
      {{"platform.server.uplink_bps", "platform.xml"},
       [](S s) { return !s.platform.xml.empty() && s.platform.server_uplink_bps; }, says(kXmlServer)},
      {{"platform.server.downlink_bps", "platform.xml"},
       [](S s) { return !s.platform.xml.empty() && s.platform.server_downlink_bps; }, says(kXmlServer)},
      {{"platform.server.latency_s", "platform.xml"},
       [](S s) { return !s.platform.xml.empty() && s.platform.server_latency_s; }, says(kXmlServer)},
  };
}

}  // namespace sections

// Each drawn figure names what its distribution needs, and nothing it ignores.
const std::vector<FigureDrawRule>& figure_draw_rules() {
  using D = const FigureDraw&;
  using F = const std::string&;
  using S = const Scenario&;
  auto fixed = [](std::string text) { return [text](F) { return text; }; };
  static const std::vector<FigureDrawRule> rules = {
      {{"dist", "median", "sigma"}, [](D d, F, S) { return d.dist == FigureDist::Lognormal && (!d.median || !d.sigma); },
       fixed("lognormal needs median and sigma")},
      {{"dist", "min", "max"}, [](D d, F, S) { return d.dist == FigureDist::Uniform && (!d.min || !d.max); },
       fixed("uniform needs min and max")},
      {{"dist", "file"}, [](D d, F, S) { return d.dist == FigureDist::Empirical && d.file.empty(); },
       fixed("empirical needs file (a CSV of observed values)")},
      {{"dist", "median", "sigma"}, [](D d, F, S) { return d.dist != FigureDist::Lognormal && (d.median || d.sigma); },
       fixed("median and sigma are lognormal's")},
      {{"dist", "file", "column"},
       [](D d, F figure, S) { return d.dist != FigureDist::Empirical && (!d.file.empty() || d.column != figure); },
       fixed("file and column are empirical's")},
      {{"min", "max"}, [](D d, F, S) { return d.min && d.max && *d.min > *d.max; }, fixed("min is above max")},
      {{"dist", "min"},
       [](D d, F figure, S) { return d.dist == FigureDist::Uniform && d.min && *d.min == 0 && figure != "latency_s"; },
       [](F figure) { return "min must be positive: " + figure + " 0 is no machine"; }},
      {{"dist", "training.mode"}, [](D, F figure, S s) { return figure == "samples" && !s.training.timing_only; },
       fixed(sections::kTimingOnly)},
  };
  return rules;
}

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

}  // namespace fedgrid

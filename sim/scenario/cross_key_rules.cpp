// The declared rules between scenario keys (cross_key_rules.hpp), in the order their problems
// are reported.
#include "sim/scenario/cross_key_rules.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "sim/scenario/validation.hpp"

namespace fedgrid {
namespace {

using Text = std::function<std::string(const Scenario&)>;
Text says(std::string text) {
  return [text = std::move(text)](const Scenario&) { return text; };
}

bool given(const Scenario& s, const std::string& key) { return s.key_lines.count(key) > 0; }

bool known_dataset(const std::string& ds) {
  return ds == "synthetic" || ds == "fashion-mnist" || ds.rfind("idx:", 0) == 0 || ds.rfind("npz:", 0) == 0;
}
std::string unknown_dataset(const std::string& ds) {
  return "unknown dataset '" + ds + "' (synthetic | fashion-mnist | idx:<dir> | npz:<file>)";
}

const std::string kTimingOnly = "needs training.mode: timing-only (a real run trains on real data)";

// Hospitals come from platform.hospitals, a roster or an XML platform; a tier ratio that fits
// fills platform.hospitals once the rules hold (scenario.cpp).
bool hospitals_listed(const Scenario::Platform& p) { return !p.hospitals.empty() || !p.roster.empty() || !p.xml.empty(); }

std::vector<CrossKeyRule> data_rules() {
  using S = const Scenario&;
  return {
      {{"training.lr_min", "training.lr", "training.lr_schedule"},
       [](S s) { return s.training.lr_schedule == LrSchedule::Cosine && s.training.lr_min > s.training.lr; },
       [](S s) {
         return "must not exceed training.lr (" + std::to_string(s.training.lr) +
                "): the cosine schedule decays from lr to lr_min";
       }},
      {{"training.fuse"}, [](S s) { return !fuse_named(s.training.fuse_text); },
       [](S s) {
         return "expected off, auto or a positive number of hospitals per fused job (e.g. 16), got '" +
                s.training.fuse_text + "'";
       }},
      // The folds decide the train and test shares; a share given too would be silently ignored.
      {{"data.split.train", "data.split.folds"},
       [](S s) { return s.data.split_folds > 0 && given(s, "data.split.train"); },
       says("not used with data.split.folds (the folds decide the train and test shares; data.split.val's share of "
            "the rest is validation)")},
      {{"data.split.test", "data.split.folds"},
       [](S s) { return s.data.split_folds > 0 && given(s, "data.split.test"); },
       says("not used with data.split.folds (the folds decide the train and test shares; data.split.val's share of "
            "the rest is validation)")},
      {{"data.split.folds"}, [](S s) { return s.data.split_folds == 1; },
       says("must be at least 2 (or 0: no cross-validation)")},
      {{"data.split.fold", "data.split.folds"},
       [](S s) { return s.data.split_folds >= 2 && s.data.split_fold > s.data.split_folds; },
       [](S s) {
         return "must be within 1.." + std::to_string(s.data.split_folds) + ", got " + std::to_string(s.data.split_fold);
       }},
      {{"data.split.val", "data.split.folds"}, [](S s) { return s.data.split_folds > 0 && s.data.split_val >= 1; },
       says("must be < 1 with data.split.folds")},
      {{"data.split", "data.split.train", "data.split.val", "data.split.test"},
       [](S s) {
         return s.data.split_folds == 0 && std::abs(s.data.split_train + s.data.split_val + s.data.split_test - 1.0) > 1e-6;
       },
       [](S s) {
         return "train + val + test must be 1, got " +
                std::to_string(s.data.split_train + s.data.split_val + s.data.split_test);
       }},
      {{"data.split.train"}, [](S s) { return s.data.split_train <= 0; }, says("must be > 0")},
  };
}

std::vector<CrossKeyRule> platform_rules() {
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
      {{"data.dataset"}, [](S s) { return !known_dataset(s.data.dataset); },
       [](S s) { return unknown_dataset(s.data.dataset); }},
      {{"data.label_map", "data.tasks"}, [](S s) { return !s.data.label_map.empty() && !s.data.tasks.empty(); },
       says("relabels data.dataset; with data.tasks each task's classes key selects its labels")},
      // data.partition.counts is the counts scheme's whole input: one without the other would either
      // fail later for want of rows or be silently ignored.
      {{"data.partition.scheme", "data.partition.counts"},
       [](S s) { return s.data.partition_scheme == data::PartitionScheme::Counts && s.data.partition_counts.empty(); },
       says("counts needs data.partition.counts: a row per hospital, a column per class, e.g. [[76, 96], [128, 116]]")},
      {{"data.partition.counts", "data.partition.scheme"},
       [](S s) { return s.data.partition_scheme != data::PartitionScheme::Counts && !s.data.partition_counts.empty(); },
       says("used only with data.partition.scheme: counts")},
      {{"data.augment.scale_min", "data.augment.scale_max"},
       [](S s) { return s.data.augment.scale_min > s.data.augment.scale_max; },
       [](S s) {
         return "must not exceed data.augment.scale_max (" + std::to_string(s.data.augment.scale_max) +
                "): the zoom is drawn from [scale_min, scale_max]";
       }},
      // A fused job trains many hospitals' batches as one batched model (sim/jobs/fused/fused_training.hpp),
      // which draws no augmentation: refused rather than silently unaugmented.
      {{"training.fuse", "data.augment"},
       [](S s) { return s.data.augment.on() && s.training.fuse.mode != FuseMode::Off; },
       says("fused training does not augment its batches: set training.fuse: off to use data.augment")},
  };
}

std::vector<CrossKeyRule> timing_rules() {
  using S = const Scenario&;
  return {
      {{"training.surrogate", "training.mode"},
       [](S s) { return !s.training.surrogate.empty() && !s.training.timing_only; }, says(kTimingOnly)},
      {{"timing.profile", "timing.compute"},
       [](S s) { return s.timing.compute == ComputeModel::Profile && s.timing.profile.empty(); },
       says("timing.compute: profile needs the profile (`fedgrid calibrate --out FILE` writes one)")},
      {{"timing.profile", "timing.compute"},
       [](S s) { return s.timing.compute != ComputeModel::Profile && !s.timing.profile.empty(); },
       says("is read only with timing.compute: profile")},
      {{"data.samples_per_hospital", "training.mode"},
       [](S s) { return s.data.samples_per_hospital.has_value() && !s.training.timing_only; }, says(kTimingOnly)},
      {{"timing.cohorts", "training.mode"}, [](S s) { return s.timing.cohorts && !s.training.timing_only; },
       says(kTimingOnly)},
      {{"timing.cohorts", "timing.network"}, [](S s) { return s.timing.cohorts && s.timing.network != NetworkModel::Cm02; },
       says("needs timing.network: cm02 (under LV08 a representative's RTT weight would differ from its members')")},
      {{"platform.xml_hospitals", "platform.xml"},
       [](S s) { return s.platform.xml.empty() && !s.platform.xml_hospitals.empty(); },
       says("is read only with platform.xml")},
      {{"platform.xml_tiers", "platform.xml"}, [](S s) { return s.platform.xml.empty() && !s.platform.xml_tiers.empty(); },
       says("is read only with platform.xml")},
      {{"timing.cohorts", "platform.xml"}, [](S s) { return s.timing.cohorts && !s.platform.xml.empty(); },
       says("works on the built-in star platform, not on platform.xml")},
      {{"timing.cohorts", "faults"}, [](S s) { return s.timing.cohorts && s.faults.any(); },
       says("cannot be combined with faults.*: a fault makes a cohort's members differ")},
      {{"timing.network", "platform.xml"}, [](S s) { return s.timing.network == NetworkModel::Fluid && !s.platform.xml.empty(); },
       says("fluid shares the built-in star's server links; a platform.xml has its own routes (use cm02)")},
      {{"timing.network", "timing.cohorts"}, [](S s) { return s.timing.network == NetworkModel::Fluid && s.timing.cohorts; },
       says("fluid and timing.cohorts are two ways to scale: choose one")},
      {{"timing.network", "faults"}, [](S s) { return s.timing.network == NetworkModel::Fluid && s.faults.any(); },
       says("fluid cannot cut a transfer half way, as faults.* need (use cm02)")},
      // ns3 builds its own network from the generated star's figures (sim/network/packet_network.hpp).
      {{"timing.network", "platform.xml"}, [](S s) { return s.timing.network == NetworkModel::Ns3 && !s.platform.xml.empty(); },
       says("ns3 builds the generated star packet by packet; a platform.xml's zones and routes are SimGrid's alone (use default or cm02)")},
      {{"timing.lv08", "timing.network"},
       [](S s) { return s.timing.network != NetworkModel::Lv08 && !(s.timing.lv08 == Scenario::Timing::Lv08{}); },
       says("is read only with timing.network: default (LV08)")},
      {{"timing.tcp", "timing.network"},
       [](S s) { return s.timing.network != NetworkModel::Ns3 && !(s.timing.tcp == network::TcpSettings{}); },
       says("is read only with timing.network: ns3 (the flow models have no TCP)")},
      {{"timing.tcp.receive_buffer_bytes", "timing.tcp.send_buffer_bytes"},
       [](S s) { return s.timing.tcp.receive_buffer_bytes <= 2 * s.timing.tcp.send_buffer_bytes; },
       says("must exceed twice timing.tcp.send_buffer_bytes: then the receive window (less the out-of-order bytes "
            "it holds, at most a send buffer) never meets the flight, where ns-3 3.37 sends an empty segment and "
            "crashes (its bug 991, fixed after 3.37)")},
      {{"timing.network", "faults"}, [](S s) { return s.timing.network == NetworkModel::Ns3 && s.faults.any(); },
       says("ns3 cannot yet cut a connection half way or change a link's rate mid-run, as faults.* need (use cm02)")},
  };
}

bool patience(const Scenario& s) { return s.stop.patience > 0; }

// Early stopping watches a validation figure: it needs validation splits and real training.
std::vector<CrossKeyRule> stop_rules() {
  using S = const Scenario&;
  return {
      {{"stop.patience", "data.split.val"}, [](S s) { return patience(s) && s.data.split_val <= 0; },
       says("needs validation splits to watch (data.split.val > 0, e.g. 0.1)")},
      {{"stop.patience", "training.mode"}, [](S s) { return patience(s) && s.training.timing_only; },
       says("watches a validation figure of real training; a timing-only run has none")},
      {{"stop.monitor", "stop.patience"}, [](S s) { return given(s, "stop.monitor") && !patience(s); },
       says("is read only with stop.patience > 0")},
      {{"stop.min_delta", "stop.patience"}, [](S s) { return given(s, "stop.min_delta") && !patience(s); },
       says("is read only with stop.patience > 0")},
  };
}

// A codec as its settings name it: "method sign", "method zfp in zfp_mode rate".
std::string codec_named(const compression::CodecSettings& c) {
  std::string s = "method " + std::string(mode_name(c.method));
  if (c.method == compression::Method::Zfp) s += " in zfp_mode " + std::string(mode_name(c.zfp_mode));
  return s;
}

// Who reads `setting`, as codec_named says them: "quantize or sign".
std::string readers_of(const std::string& setting) {
  std::vector<std::string> readers;
  for (const auto& m : compression::kMethods)
    for (const auto& z : compression::kZfpModes) {
      compression::CodecSettings c;
      c.method = m.mode, c.zfp_mode = z.mode;
      const auto read = compression::settings_read(c);
      const std::string name = codec_named(c);
      if (std::find(read.begin(), read.end(), setting) != read.end() &&
          std::find(readers.begin(), readers.end(), name) == readers.end())
        readers.push_back(name);
    }
  std::string s;
  for (size_t i = 0; i < readers.size(); ++i) s += (i == 0 ? "" : i + 1 == readers.size() ? " or " : ", ") + readers[i];
  return s;
}

// A setting the codec does not read, named as an algorithm's key of another algorithm is:
// whose it is, and the closest of the codec's own.
std::string not_read(const compression::CodecSettings& c, const std::string& prefix, const std::string& setting) {
  std::string hint;
  size_t best = std::string::npos;
  for (const auto& own : compression::settings_read(c))  // a value for a value: zfp_mode is never the hint
    if (const size_t d = edit_distance(setting, own); own != "zfp_mode" && d < best) best = d, hint = prefix + own;
  return "not a setting of " + codec_named(c) + ": only " + readers_of(setting) + " read it" +
         (hint.empty() ? "" : " (did you mean '" + hint + "'?)");
}

// compression.uplink.* / downlink.*: each setting's range is the codec's settings_problems(),
// reported at the setting's key; a setting of another method than the one set (as an
// algorithm's keys are checked), settings without a method, and what the transfer stage cannot
// honour (docs/guide/compression.md).
std::vector<CrossKeyRule> compression_rules() {
  using S = const Scenario&;
  using Link = Scenario::Compression::Link;
  std::vector<CrossKeyRule> rules;
  for (const auto& [dir, link] : {std::pair{std::string("uplink"), &Scenario::Compression::uplink},
                                  std::pair{std::string("downlink"), &Scenario::Compression::downlink}}) {
    const std::string p = "compression." + dir + ".";
    // A copy: clang refuses to capture a structured binding.
    auto of = [member = link](S s) -> const Link& { return s.compression.*member; };
    for (const std::string setting : {"bits", "bucket", "fraction", "error_bound", "rate"}) {
      auto problem = [of, setting](S s) -> std::string {
        if (!of(s).on) return "";
        for (const auto& pr : compression::settings_problems(of(s).codec))
          if (pr.setting == setting) return pr.message;
        return "";
      };
      rules.push_back({{p + setting, p + "method"}, [problem](S s) { return !problem(s).empty(); }, problem});
    }
    for (const std::string& setting : compression::all_settings())
      rules.push_back({{p + setting, p + "method"},
                       [of, key = p + setting, setting](S s) {
                         const auto read = compression::settings_read(of(s).codec);
                         return of(s).on && given(s, key) && std::find(read.begin(), read.end(), setting) == read.end();
                       },
                       [of, p, setting](S s) { return not_read(of(s).codec, p, setting); }});
    for (const std::string& setting : compression::all_settings())
      // `method: none` written out keeps the settings for a --set or a sweep that turns it on.
      rules.push_back({{p + setting, p + "method"},
                       [of, key = p + setting, method = p + "method"](S s) {
                         return !of(s).on && given(s, key) && !given(s, method);
                       },
                       says("is read only with " + p + "method set (quantize, topk, sign or zfp; or none, written out)")});
    rules.push_back({{p + "zfp_mode", "training.mode"},
                     [of](S s) {
                       const auto& c = of(s).codec;
                       return of(s).on && s.training.timing_only && c.method == compression::Method::Zfp &&
                              c.zfp_mode == compression::ZfpMode::Accuracy;
                     },
                     says("accuracy's encoded size depends on the values, and a timing-only run holds none: use "
                          "zfp_mode: rate, or real training")});
  }
  // A cohort's representative stands for k hospitals on the network, but the server would
  // encode and decode once for all of them.
  rules.push_back({{"timing.cohorts", "compression"}, [](S s) { return s.timing.cohorts && s.compression.any(); },
                   says("cannot be combined with compression.*: the server encodes and decodes each member's model, "
                        "which a cohort's one representative does not charge")});
  return rules;
}

}  // namespace

const std::vector<CrossKeyRule>& cross_key_rules() {
  static const std::vector<CrossKeyRule> rules = [] {
    std::vector<CrossKeyRule> all = data_rules();
    for (auto part : {platform_rules(), timing_rules(), stop_rules(), compression_rules()})
      all.insert(all.end(), part.begin(), part.end());
    return all;
  }();
  return rules;
}

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
       fixed(kTimingOnly)},
  };
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
    if (!known_dataset(s.data.tasks[i].dataset))
      report("data.tasks[" + std::to_string(i) + "].dataset", unknown_dataset(s.data.tasks[i].dataset));
  for (size_t i = 0; i < s.platform.hospitals.size(); ++i)
    for (const auto& [figure, draw] : s.platform.hospitals[i].vary)
      for (const FigureDrawRule& rule : figure_draw_rules())
        if (rule.broken(draw, figure, s))
          report("platform.hospitals[" + std::to_string(i) + "].vary." + figure, rule.message(figure));
  return problems;
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

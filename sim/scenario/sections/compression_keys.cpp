// compression.uplink.* and compression.downlink.*: their keys and cross-key rules (the codecs:
// sim/compression/). Each direction binds one CodecSettings (method and zfp_mode read as modes,
// by their names in codec_settings.hpp); a setting's range is checked by settings_problems() as
// a cross-key rule (compression_rules, below), so the message is the codec's own and names the
// key.
#include <algorithm>

#include "sim/scenario/sections/parts.hpp"
#include "sim/scenario/validation.hpp"

namespace fedgrid::sections {

namespace {

using Link = Scenario::Compression::Link;
using compression::CodecSettings;

// method: none (the default: models cross at 4 bytes a value, as without the section) or
// one of the codecs' names (compression::kMethods).
std::vector<std::string> method_names() {
  std::vector<std::string> names{"none"};
  for (const auto& m : compression::kMethods) names.emplace_back(m.name);
  return names;
}

void link_keys(Keys& k, const std::string& dir, Link Scenario::Compression::*link, const std::string& what) {
  using S = Scenario;
  const std::string p = "compression." + dir + ".";
  auto codec = [link](S& s) -> CodecSettings& { return (s.compression.*link).codec; };
  const CodecSettings d;
  k.group("compression." + dir, what);
  k.custom(p + "method", KeyType::String, "none",
           "none | quantize (bits, bucket) | topk (fraction) | sign (bucket) | zfp (zfp_mode, error_bound or rate) | "
           "powersgd (rank) | dgc (sparsity, momentum, masking, clip_norm, warmup_rounds)",
           {.allowed = method_names()}, [name = p + "method", link](S& s, const KeyValues& from) {
             const auto v = from.value<std::string>(name);
             if (!v || *v == "none") return;
             (s.compression.*link).on = true;
             (s.compression.*link).codec.method = *mode_named<compression::Method>(*v);
           })
      .bind<int>(p + "bits", [codec](S& s) -> auto& { return codec(s).bits; }, std::to_string(d.bits),
                 "quantize: bits per value, 1..16 (stochastic rounding between the bucket's min and max)")
      .bind<int64_t>(p + "bucket", [codec](S& s) -> auto& { return codec(s).bucket; }, std::to_string(d.bucket),
                     "quantize, sign: values sharing one scale (0: the whole state)")
      .bind<double>(p + "fraction", [codec](S& s) -> auto& { return codec(s).fraction; }, "0.01",
                    "topk: share of entries sent, in (0, 1] (the rest is fed back)");
  k.custom(p + "zfp_mode", KeyType::String, "accuracy",
           "zfp: accuracy (error_bound; not in timing-only runs) | rate (bits per value)",
           {.allowed = mode_names<compression::ZfpMode>()}, [name = p + "zfp_mode", codec](S& s, const KeyValues& from) {
             if (const auto v = from.value<std::string>(name)) codec(s).zfp_mode = *mode_named<compression::ZfpMode>(*v);
           })
      .bind<double>(p + "error_bound", [codec](S& s) -> auto& { return codec(s).error_bound; }, "0.001",
                    "zfp accuracy: largest absolute error of a decoded value, > 0")
      .bind<double>(p + "rate", [codec](S& s) -> auto& { return codec(s).rate; }, "8",
                    "zfp rate: bits per value, in (0, 32]")
      .bind<int>(p + "rank", [codec](S& s) -> auto& { return codec(s).rank; }, std::to_string(d.rank),
                 "powersgd: rank of each weight matrix's approximation (the paper's image classification ran 2), "
                 "1..65535")
      .bind<double>(p + "sparsity", [codec](S& s) -> auto& { return codec(s).sparsity; }, "0.999",
                    "dgc: share of entries left out once warmed up, in [0, 1) (the paper's 99.9%)")
      .bind<double>(p + "momentum", [codec](S& s) -> auto& { return codec(s).momentum; }, "0.9",
                    "dgc: momentum correction's factor m (u = m u + update), in [0, 1)")
      .bind<bool>(p + "masking", [codec](S& s) -> auto& { return codec(s).masking; }, "true",
                  "dgc: momentum factor masking (u is zeroed where sent)")
      .bind<double>(p + "clip_norm", [codec](S& s) -> auto& { return codec(s).clip_norm; }, "0",
                    "dgc: local clipping's global L2 threshold; a sender clips at clip_norm / sqrt(N), N the "
                    "hospitals on the uplink, 1 on the downlink; 0: no clipping")
      .bind<int>(p + "warmup_rounds", [codec](S& s) -> auto& { return codec(s).warmup_rounds; },
                 std::to_string(d.warmup_rounds),
                 "dgc: rounds of sparsity warm-up (75%, 93.75%, 98.4375%, 99.6%, ...), counted per sender and receiver");
}

}  // namespace

void compression_keys(Keys& k) {
  k.group("compression", "Compressed model transfers (docs/guide/compression.md): off unless a direction names a method");
  link_keys(k, "uplink", &Scenario::Compression::uplink,
            "Codec of models a hospital sends (to the server or to another hospital)");
  link_keys(k, "downlink", &Scenario::Compression::downlink, "Codec of models the server sends to a hospital");
}

namespace {

// The codecs' names as a sentence lists them: "quantize, topk, ... or dgc".
std::string methods_listed() {
  std::string s;
  const size_t n = std::size(compression::kMethods);
  for (size_t i = 0; i < n; ++i) s += (i == 0 ? "" : i + 1 == n ? " or " : ", ") + std::string(compression::kMethods[i].name);
  return s;
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

}  // namespace

// compression.uplink.* / downlink.*: each setting's range is the codec's settings_problems(),
// reported at the setting's key; a setting of another method than the one set (as an
// algorithm's keys are checked), settings without a method, and what the transfer stage cannot
// honour (docs/guide/compression.md).
Rules compression_rules() {
  using S = const Scenario&;
  Rules rules;
  for (const auto& [dir, link] : {std::pair{std::string("uplink"), &Scenario::Compression::uplink},
                                  std::pair{std::string("downlink"), &Scenario::Compression::downlink}}) {
    const std::string p = "compression." + dir + ".";
    // A copy: clang refuses to capture a structured binding.
    auto of = [member = link](S s) -> const Link& { return s.compression.*member; };
    for (const std::string setting :
         {"bits", "bucket", "fraction", "error_bound", "rate", "rank", "sparsity", "momentum", "clip_norm", "warmup_rounds"}) {
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
                       says("is read only with " + p + "method set (" + methods_listed() + "; or none, written out)")});
    rules.push_back({{p + "zfp_mode", "training.mode"},
                     [of](S s) {
                       const auto& c = of(s).codec;
                       return of(s).on && s.training.timing_only && c.method == compression::Method::Zfp &&
                              c.zfp_mode == compression::ZfpMode::Accuracy;
                     },
                     says("accuracy's encoded size depends on the values, and a timing-only run holds none: use "
                          "zfp_mode: rate, or real training")});
  }
  return rules;
}

}  // namespace fedgrid::sections

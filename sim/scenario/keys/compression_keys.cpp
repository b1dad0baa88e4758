// compression.uplink.* and compression.downlink.*: the codec each direction's model transfers
// go through (docs/guide/compression.md; the codecs: sim/compression/). Each direction binds
// one CodecSettings (method and zfp_mode read as modes, by their names in codec_settings.hpp); a
// setting's range is checked by settings_problems() as a cross-key rule (cross_key_rules.cpp),
// so the message is the codec's own and names the key.
#include "sim/scenario/keys/sections.hpp"

namespace fedgrid::key_sections {

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
           "none | quantize (bits, bucket) | topk (fraction) | sign (bucket) | zfp (zfp_mode, error_bound or rate)",
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
                    "zfp rate: bits per value, in (0, 32]");
}

}  // namespace

void compression_keys(Keys& k) {
  k.group("compression", "Compressed model transfers (docs/guide/compression.md): off unless a direction names a method");
  link_keys(k, "uplink", &Scenario::Compression::uplink,
            "Codec of models a hospital sends (to the server or to another hospital)");
  link_keys(k, "downlink", &Scenario::Compression::downlink, "Codec of models the server sends to a hospital");
}

}  // namespace fedgrid::key_sections

#pragma once
// A codec's settings and their checks, header-only and without libzfp, so the scenario layer
// can bind keys to them and report their problems without linking the codecs (codec.hpp).
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "sim/core/mode_names.hpp"

namespace fedgrid::compression {

// The method: its names are a mode's (sim/core/mode_names.hpp), so a scenario key can bind it with
// bind_mode; the value is the first byte of every encoded update.
enum class Method : uint8_t { Quantize = 1, TopK = 2, Sign = 3, Zfp = 4, PowerSgd = 5, Dgc = 6 };
inline constexpr ModeName<Method> kMethods[] = {{Method::Quantize, "quantize"}, {Method::TopK, "topk"},
                                                {Method::Sign, "sign"},         {Method::Zfp, "zfp"},
                                                {Method::PowerSgd, "powersgd"}, {Method::Dgc, "dgc"}};
constexpr std::span<const ModeName<Method>> modes_of(Method) { return kMethods; }

// zfp's two modes used here: an absolute error bound (accuracy) or fixed bits per value (rate).
enum class ZfpMode : uint8_t { Accuracy = 0, Rate = 1 };
inline constexpr ModeName<ZfpMode> kZfpModes[] = {{ZfpMode::Accuracy, "accuracy"}, {ZfpMode::Rate, "rate"}};
constexpr std::span<const ModeName<ZfpMode>> modes_of(ZfpMode) { return kZfpModes; }

// Every setting of every method, flat, so scenario keys (compression.uplink.bits, ...) can
// bind to its fields; a method reads only its own.
struct CodecSettings {
  Method method = Method::Quantize;
  int bits = 8;              // quantize: bits per value, 1..16
  int64_t bucket = 0;        // quantize, sign: values sharing one scale; 0: the whole state
  double fraction = 0.01;    // topk: share of entries sent, in (0, 1]
  ZfpMode zfp_mode = ZfpMode::Accuracy;
  double error_bound = 1e-3; // zfp accuracy: largest absolute error of a decoded value
  double rate = 8;           // zfp rate: bits per value, in (0, 32]
  int rank = 2;              // powersgd: rank of each matrix's approximation, 1..kMaxRank
  double sparsity = 0.999;   // dgc: share of entries left out once warmed up, in [0, 1)
  double momentum = 0.9;     // dgc: momentum of its velocity u (momentum correction), in [0, 1)
  bool masking = true;       // dgc: momentum factor masking (zero u where sent)
  double clip_norm = 0;      // dgc: the global L2 threshold of local clipping; 0: no clipping
  int warmup_rounds = 4;     // dgc: encodings whose sparsity warms up (75%, 93.75%, ...)
  // dgc: N, the senders whose updates one receiver sums (local clipping's threshold is
  // clip_norm / sqrt(N)). Not a key: the transfer stage sets it (the federation's hospitals on
  // the uplink, 1 on the downlink).
  int64_t nodes = 1;
};

// A setting out of range: `setting` is the field's name (bits, bucket, fraction, error_bound,
// rate); the scenario layer prefixes its key (compression.uplink.) and names file and line.
struct SettingProblem {
  std::string setting;
  std::string message;
};

// The most values one update holds: its header counts them in 32 bits.
inline constexpr int64_t kMaxCodecValues = std::numeric_limits<uint32_t>::max();
// powersgd's largest rank: far above any matrix's useful rank (the rank used is at most the
// matrix's smaller side), small enough for the format's and the work's counts.
inline constexpr int kMaxRank = 65535;

// Shortest text that reads back as `v` (1e-05, 0.25).
inline std::string settings_number(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(v);
}

// The problems of the settings `s.method` reads, in field order; empty when it can encode.
inline std::vector<SettingProblem> settings_problems(const CodecSettings& s) {
  std::vector<SettingProblem> out;
  const bool bucketed = s.method == Method::Quantize || s.method == Method::Sign;
  if (s.method == Method::Quantize && (s.bits < 1 || s.bits > 16))
    out.push_back({"bits", "must be from 1 to 16 bits per value, got " + std::to_string(s.bits)});
  if (bucketed && (s.bucket < 0 || s.bucket > kMaxCodecValues))
    out.push_back({"bucket", "must be 0 (one scale for the whole state) or a count of values up to " +
                                 std::to_string(kMaxCodecValues) + ", got " + std::to_string(s.bucket)});
  if (s.method == Method::TopK && !(s.fraction > 0 && s.fraction <= 1))
    out.push_back({"fraction", "must be in (0, 1]: the share of entries sent, got " + settings_number(s.fraction)});
  if (s.method == Method::Zfp && s.zfp_mode == ZfpMode::Accuracy && !(s.error_bound > 0 && std::isfinite(s.error_bound)))
    out.push_back({"error_bound", "must be positive: the largest absolute error of a decoded value, got " +
                                      settings_number(s.error_bound)});
  if (s.method == Method::Zfp && s.zfp_mode == ZfpMode::Rate && !(s.rate > 0 && s.rate <= 32))
    out.push_back({"rate", "must be in (0, 32] bits per value (a float has 32), got " + settings_number(s.rate)});
  if (s.method == Method::PowerSgd && (s.rank < 1 || s.rank > kMaxRank))
    out.push_back({"rank", "must be from 1 to " + std::to_string(kMaxRank) +
                               ": the rank of each matrix's approximation, got " + std::to_string(s.rank)});
  if (s.method == Method::Dgc) {
    if (!(s.sparsity >= 0 && s.sparsity < 1))
      out.push_back({"sparsity", "must be in [0, 1): the share of entries left out once warmed up, got " +
                                     settings_number(s.sparsity)});
    if (!(s.momentum >= 0 && s.momentum < 1))
      out.push_back({"momentum", "must be in [0, 1): the momentum of the accumulated velocity, got " +
                                     settings_number(s.momentum)});
    if (!(s.clip_norm >= 0 && std::isfinite(s.clip_norm)))
      out.push_back({"clip_norm", "must be 0 (no clipping) or a positive L2 norm, got " + settings_number(s.clip_norm)});
    if (s.warmup_rounds < 0)
      out.push_back({"warmup_rounds", "must be 0 (no warm-up) or a count of rounds, got " + std::to_string(s.warmup_rounds)});
    if (s.nodes < 1)
      out.push_back({"nodes", "must be at least 1: the senders one receiver sums, got " + std::to_string(s.nodes)});
  }
  return out;
}

// The settings `s.method` reads, by the names of their keys (compression.<dir>.<setting>), as an
// algorithm declares its own keys: a scenario gives a codec these and no other method's
// (cross_key_rules.cpp). zfp reads error_bound in accuracy mode, rate in rate mode.
inline std::vector<std::string> settings_read(const CodecSettings& s) {
  switch (s.method) {
    case Method::Quantize: return {"bits", "bucket"};
    case Method::TopK: return {"fraction"};
    case Method::Sign: return {"bucket"};
    case Method::Zfp: return {"zfp_mode", s.zfp_mode == ZfpMode::Accuracy ? "error_bound" : "rate"};
    case Method::PowerSgd: return {"rank"};
    case Method::Dgc: return {"sparsity", "momentum", "masking", "clip_norm", "warmup_rounds"};
  }
  return {};
}

// Every setting any method reads, in the order of CodecSettings' fields.
inline const std::vector<std::string>& all_settings() {
  static const std::vector<std::string> all{"bits",     "bucket",   "fraction", "zfp_mode",  "error_bound",  "rate",
                                            "rank",     "sparsity", "momentum", "masking",   "clip_norm",    "warmup_rounds"};
  return all;
}

// The method and the settings it reads, as a scenario writes them: "topk(fraction=0.01)".
inline std::string describe(const CodecSettings& s) {
  std::string args;
  switch (s.method) {
    case Method::Quantize: args = "bits=" + std::to_string(s.bits) + ", bucket=" + std::to_string(s.bucket); break;
    case Method::TopK: args = "fraction=" + settings_number(s.fraction); break;
    case Method::Sign: args = "bucket=" + std::to_string(s.bucket); break;
    case Method::Zfp:
      args = s.zfp_mode == ZfpMode::Accuracy ? "error_bound=" + settings_number(s.error_bound) : "rate=" + settings_number(s.rate);
      break;
    case Method::PowerSgd: args = "rank=" + std::to_string(s.rank); break;
    case Method::Dgc:
      args = "sparsity=" + settings_number(s.sparsity) + ", momentum=" + settings_number(s.momentum) +
             ", masking=" + (s.masking ? "true" : "false") + ", clip_norm=" + settings_number(s.clip_norm) +
             ", warmup_rounds=" + std::to_string(s.warmup_rounds);
      break;
  }
  return std::string(mode_name(s.method)) + "(" + args + ")";
}

}  // namespace fedgrid::compression

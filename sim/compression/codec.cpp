// Settings checks, the shared header, error-feedback state and the codec factory
// (codec.hpp, codec_format.hpp).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "sim/compression/codec_format.hpp"

namespace fedgrid::compression {
namespace {

constexpr int64_t kMaxValues = std::numeric_limits<uint32_t>::max();  // the header's count field

// Shortest text that reads back as `v` (1e-05 -> "1e-05", 0.25 -> "0.25").
std::string number(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(v);
}

// The state's format: "FGEF" (4 bytes), format version 1 (1 byte), count (8 bytes), the
// residual as float32 bit patterns, all little-endian.
constexpr uint8_t kStateMagic[4] = {'F', 'G', 'E', 'F'};
constexpr uint8_t kStateVersion = 1;

}  // namespace

std::vector<SettingProblem> settings_problems(const CodecSettings& s) {
  std::vector<SettingProblem> out;
  const bool bucketed = s.method == Method::Quantize || s.method == Method::Sign;
  if (s.method == Method::Quantize && (s.bits < 1 || s.bits > 16))
    out.push_back({"bits", "must be from 1 to 16 bits per value, got " + std::to_string(s.bits)});
  if (bucketed && (s.bucket < 0 || s.bucket > kMaxValues))
    out.push_back({"bucket", "must be 0 (one scale for the whole state) or a count of values up to " +
                                 std::to_string(kMaxValues) + ", got " + std::to_string(s.bucket)});
  if (s.method == Method::TopK && !(s.fraction > 0 && s.fraction <= 1))
    out.push_back({"fraction", "must be in (0, 1]: the share of entries sent, got " + number(s.fraction)});
  if (s.method == Method::Zfp && s.zfp_mode == ZfpMode::Accuracy && !(s.error_bound > 0 && std::isfinite(s.error_bound)))
    out.push_back({"error_bound", "must be positive: the largest absolute error of a decoded value, got " +
                                      number(s.error_bound)});
  if (s.method == Method::Zfp && s.zfp_mode == ZfpMode::Rate && !(s.rate > 0 && s.rate <= 32))
    out.push_back({"rate", "must be in (0, 32] bits per value (a float has 32), got " + number(s.rate)});
  return out;
}

std::string Codec::describe() const {
  const CodecSettings& s = settings_;
  std::string args;
  switch (s.method) {
    case Method::Quantize: args = "bits=" + std::to_string(s.bits) + ", bucket=" + std::to_string(s.bucket); break;
    case Method::TopK: args = "fraction=" + number(s.fraction); break;
    case Method::Sign: args = "bucket=" + std::to_string(s.bucket); break;
    case Method::Zfp:
      args = s.zfp_mode == ZfpMode::Accuracy ? "error_bound=" + number(s.error_bound) : "rate=" + number(s.rate);
      break;
  }
  return std::string(mode_name(s.method)) + "(" + args + ")";
}

void Codec::restore_undelivered(EncoderState& state, const EncodedUpdate& lost) const {
  if (!keeps_residual()) return;
  const std::vector<float> sent = decode(lost);
  state.residual.resize(sent.size(), 0.0f);  // a first encoding's residual may have been empty
  for (size_t i = 0; i < sent.size(); ++i) state.residual[i] += sent[i];
}

std::unique_ptr<Codec> make_codec(const CodecSettings& s) {
  if (auto problems = settings_problems(s); !problems.empty()) {
    std::string text;
    for (const auto& p : problems) text += (text.empty() ? "" : "; ") + p.setting + ": " + p.message;
    throw std::invalid_argument(std::string(mode_name(s.method)) + " settings: " + text);
  }
  switch (s.method) {
    case Method::Quantize: return make_quantize(s);
    case Method::TopK: return make_topk(s);
    case Method::Sign: return make_sign(s);
    case Method::Zfp: return make_zfp(s);
  }
  throw std::invalid_argument("unknown compression method " + std::to_string(int(s.method)));
}

void write_common_header(ByteWriter& w, Method method, int64_t values) {
  if (values < 0 || values > kMaxValues)
    throw std::length_error("a compressed update holds at most " + std::to_string(kMaxValues) + " values, not " +
                            std::to_string(values));
  w.u8(uint8_t(method));
  w.u32(uint32_t(values));
}

int64_t read_common_header(ByteReader& r, Method expected) {
  const uint8_t m = r.u8();
  if (m != uint8_t(expected))
    r.fail("written by method " + std::to_string(m) + ", read as " + std::string(mode_name(expected)) + " (" +
           std::to_string(int(expected)) + ")");
  return r.u32();
}

std::vector<float> with_residual(std::span<const float> values, const EncoderState& state) {
  std::vector<float> v(values.begin(), values.end());
  if (state.residual.empty()) return v;
  if (state.residual.size() != values.size())
    throw std::invalid_argument("error-feedback state holds " + std::to_string(state.residual.size()) +
                                " values, the update " + std::to_string(values.size()) +
                                ": reset the state when the shape of what is sent changes");
  for (size_t i = 0; i < v.size(); ++i) v[i] += state.residual[i];
  return v;
}

std::vector<uint8_t> save_state(const EncoderState& state) {
  std::vector<uint8_t> out;
  out.reserve(13 + 4 * state.residual.size());
  ByteWriter w(out);
  for (uint8_t b : kStateMagic) w.u8(b);
  w.u8(kStateVersion);
  w.u64(state.residual.size());
  for (float v : state.residual) w.f32(v);
  return out;
}

EncoderState load_state(std::span<const uint8_t> bytes) {
  ByteReader r(bytes, "error-feedback state");
  const auto magic = r.bytes(4);
  if (!std::equal(magic.begin(), magic.end(), kStateMagic)) r.fail("not an error-feedback state");
  if (const uint8_t version = r.u8(); version != kStateVersion)
    r.fail("format version " + std::to_string(version) + ", this build reads " + std::to_string(kStateVersion));
  const uint64_t n = r.u64();
  if (n > r.left() / 4) r.fail(std::to_string(n) + " values announced, " + std::to_string(r.left()) + " bytes left");
  EncoderState state;
  state.residual.resize(n);
  for (auto& v : state.residual) v = r.f32();
  if (r.left() != 0) r.fail(std::to_string(r.left()) + " bytes after the last value");
  return state;
}

}  // namespace fedgrid::compression

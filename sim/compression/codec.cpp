// The codec factory, the shared header and error-feedback state (codec.hpp, codec_format.hpp).
#include <algorithm>
#include <limits>
#include <stdexcept>

#include "sim/compression/codec_format.hpp"

namespace fedgrid::compression {
namespace {

// The state's format: "FGEF" (4 bytes), format version 1 (1 byte), count (8 bytes), the
// residual as float32 bit patterns, all little-endian.
constexpr uint8_t kStateMagic[4] = {'F', 'G', 'E', 'F'};
constexpr uint8_t kStateVersion = 1;

}  // namespace

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
  if (values < 0 || values > kMaxCodecValues)
    throw std::length_error("a compressed update holds at most " + std::to_string(kMaxCodecValues) + " values, not " +
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

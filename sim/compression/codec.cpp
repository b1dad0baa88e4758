// The codec factory, the shared header and error-feedback state (codec.hpp, codec_format.hpp).
#include <algorithm>
#include <limits>
#include <stdexcept>

#include "sim/compression/codec_format.hpp"

namespace fedgrid::compression {
namespace {

// The state's format: "FGEF" (4 bytes), format version (1 byte), count (8 bytes), the residual
// as float32 bit patterns; version 2 then adds dgc's momentum and powersgd's query (a count and
// the floats each) and dgc's encodings (8 bytes). All little-endian. A state with neither
// (quantize, topk, sign, zfp) is written as version 1, as before those codecs existed.
constexpr uint8_t kStateMagic[4] = {'F', 'G', 'E', 'F'};
constexpr uint8_t kStateVersion = 1, kStateVersionMore = 2;

void put_floats(ByteWriter& w, const std::vector<float>& v) {
  w.u64(v.size());
  for (float x : v) w.f32(x);
}

std::vector<float> get_floats(ByteReader& r) {
  const uint64_t n = r.u64();
  if (n > r.left() / 4) r.fail(std::to_string(n) + " values announced, " + std::to_string(r.left()) + " bytes left");
  std::vector<float> v(n);
  for (auto& x : v) x = r.f32();
  return v;
}

// A layout that does not add up to the values is the caller's mistake, said plainly.
void check_layout(const Layout& layout, int64_t n) {
  if (layout.empty()) return;
  int64_t total = 0;
  for (const auto& t : layout) {
    for (int64_t d : t.dims)
      if (d < 0) throw std::invalid_argument("a layout's tensor has a negative dimension");
    total += t.values();
  }
  if (total != n)
    throw std::invalid_argument("the layout's " + std::to_string(layout.size()) + " tensors hold " + std::to_string(total) +
                                " values, the update " + std::to_string(n));
}

}  // namespace

EncodedUpdate Codec::encode(std::span<const float> values, EncoderState& state, uint64_t seed, const Layout& layout) const {
  check_layout(layout, int64_t(values.size()));
  return do_encode(values, layout, state, seed);
}

double Codec::encode_flops(int64_t n, const Layout& layout, const EncoderState& state) const {
  check_layout(layout, n);
  return do_encode_flops(n, layout, state);
}

double Codec::decode_flops(int64_t n, const Layout& layout, const EncoderState& state) const {
  check_layout(layout, n);
  return do_decode_flops(n, layout, state);
}

std::optional<int64_t> Codec::shape_bytes(int64_t n, const Layout& layout, const EncoderState& state) const {
  check_layout(layout, n);
  return do_shape_bytes(n, layout, state);
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
    case Method::PowerSgd: return make_powersgd(s);
    case Method::Dgc: return make_dgc(s);
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
  const bool more = !state.momentum.empty() || !state.query.empty() || state.encodings != 0;
  std::vector<uint8_t> out;
  out.reserve(13 + 4 * state.residual.size() + (more ? 24 + 4 * (state.momentum.size() + state.query.size()) : 0));
  ByteWriter w(out);
  for (uint8_t b : kStateMagic) w.u8(b);
  w.u8(more ? kStateVersionMore : kStateVersion);
  put_floats(w, state.residual);
  if (more) {
    put_floats(w, state.momentum);
    put_floats(w, state.query);
    w.u64(uint64_t(state.encodings));
  }
  return out;
}

EncoderState load_state(std::span<const uint8_t> bytes) {
  ByteReader r(bytes, "error-feedback state");
  const auto magic = r.bytes(4);
  if (!std::equal(magic.begin(), magic.end(), kStateMagic)) r.fail("not an error-feedback state");
  const uint8_t version = r.u8();
  if (version != kStateVersion && version != kStateVersionMore)
    r.fail("format version " + std::to_string(version) + ", this build reads " + std::to_string(kStateVersion) + " and " +
           std::to_string(kStateVersionMore));
  EncoderState state;
  state.residual = get_floats(r);
  if (version == kStateVersionMore) {
    state.momentum = get_floats(r);
    state.query = get_floats(r);
    const uint64_t encodings = r.u64();
    if (encodings > uint64_t(std::numeric_limits<int64_t>::max())) r.fail("a count of encodings past 2^63");
    state.encodings = int64_t(encodings);
  }
  if (r.left() != 0) r.fail(std::to_string(r.left()) + " bytes after the last value");
  return state;
}

}  // namespace fedgrid::compression

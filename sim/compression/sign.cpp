// sign: each value is sent as its sign, one bit, and decoded as the sign times its bucket's
// mean magnitude: EF-SignSGD's scaled sign, ||p||_1 / d x sign(p) (Karimireddy et al. 2019,
// "Error feedback fixes SignSGD"), with its error feedback: what the scaled sign misses stays
// in the sender's residual. signSGD (Bernstein et al. 2018) sends the bare sign. A zero value
// counts as positive.
//
// Format: header [method=3 u8][n u32][bucket u32] (9 bytes), then per bucket [mean |v| f32],
// then n sign bits (1: non-negative), lowest bit first, ceil(n/8) bytes.
#include <cmath>

#include "sim/compression/codec_format.hpp"

namespace fedgrid::compression {
namespace {

constexpr int64_t kSignHeaderBytes = kCommonHeaderBytes + 4;

class Sign final : public Codec {
 public:
  using Codec::Codec;
  bool keeps_residual() const override { return true; }

  EncodedUpdate do_encode(std::span<const float> values, const Layout&, EncoderState& state, uint64_t) const override {
    const int64_t n = int64_t(values.size());
    std::vector<float> v = with_residual(values, state);
    EncodedUpdate out{{}, n};
    out.bytes.reserve(size_t(*shape_bytes(n)));
    ByteWriter w(out.bytes);
    write_common_header(w, Method::Sign, n);
    w.u32(uint32_t(settings().bucket));

    const int64_t size = bucket_size(settings().bucket, n), buckets = bucket_count(settings().bucket, n);
    std::vector<float> scale(static_cast<size_t>(buckets));
    for (int64_t b = 0; b < buckets; ++b) {
      const int64_t end = std::min(n, (b + 1) * size);
      double sum = 0;  // in index order, in double: the same scale on every machine
      for (int64_t i = b * size; i < end; ++i) sum += std::abs(double(v[size_t(i)]));
      scale[size_t(b)] = float(sum / double(end - b * size));
      w.f32(scale[size_t(b)]);
    }
    BitPacker signs(out.bytes, 1);
    for (int64_t i = 0; i < n; ++i) {
      const bool positive = v[size_t(i)] >= 0;
      signs.put(positive ? 1 : 0);
      const float s = scale[size_t(i / size)];
      v[size_t(i)] -= positive ? s : -s;  // the residual: what the scaled sign missed
    }
    signs.flush();
    state.residual = std::move(v);
    return out;
  }

  std::vector<float> decode(const EncodedUpdate& update) const override {
    ByteReader r(update.bytes, "sign update");
    const int64_t n = read_common_header(r, Method::Sign);
    const int64_t bucket = r.u32();
    const int64_t size = bucket_size(bucket, n), buckets = bucket_count(bucket, n);
    r.expect_left(uint64_t(4 * buckets + packed_bytes(n, 1)), "the scales and signs");
    std::vector<float> scale(static_cast<size_t>(buckets));
    for (auto& s : scale) s = r.f32();
    const auto packed = r.bytes(size_t(packed_bytes(n, 1)));
    BitUnpacker signs(packed, 1);
    std::vector<float> out(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      const float s = scale[size_t(i / size)];
      out[size_t(i)] = signs.get() ? s : -s;
    }
    return out;
  }

  // Per value: the residual's addition, the magnitude and its sum (3), the sign (1), the
  // residual's update (2).
  double do_encode_flops(int64_t n, const Layout&, const EncoderState&) const override { return 6.0 * double(n); }
  // Per value: unpack and pick the sign (2).
  double do_decode_flops(int64_t n, const Layout&, const EncoderState&) const override { return 2.0 * double(n); }

  std::optional<int64_t> do_shape_bytes(int64_t n, const Layout&, const EncoderState&) const override {
    return kSignHeaderBytes + 4 * bucket_count(settings().bucket, n) + packed_bytes(n, 1);
  }
};

}  // namespace

std::unique_ptr<Codec> make_sign(const CodecSettings& s) { return std::make_unique<Sign>(s); }

}  // namespace fedgrid::compression

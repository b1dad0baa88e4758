// quantize: b-bit stochastic uniform quantization per bucket, as QSGD (Alistarh et al. 2017)
// and FedPAQ (Reisizadeh et al. 2020) quantize an update: a value x of a bucket is rounded to
// one of 2^b evenly spaced levels spanning the bucket, to the level above with probability
// equal to x's distance past the level below (in steps), so the decoded value's mean is x
// (unbiased). QSGD spans [-|v|, |v|] with a sign bit; here the levels span
// the bucket's [min, max]: both ends decode exactly, every one of the 2^b codes is a level, and
// 1 bit (min or max) is a valid setting.
//
// Format: header [method=1 u8][n u32][bits u8][bucket u32] (10 bytes), then per bucket
// [min f32][max f32], then n codes of `bits` bits packed from the lowest bit up.
#include <cmath>
#include <limits>

#include "sim/compression/codec_format.hpp"

namespace fedgrid::compression {
namespace {

constexpr int64_t kQuantizeHeaderBytes = kCommonHeaderBytes + 1 + 4;

class Quantize final : public Codec {
 public:
  using Codec::Codec;
  bool keeps_residual() const override { return false; }

  EncodedUpdate do_encode(std::span<const float> values, const Layout&, EncoderState&, uint64_t seed) const override {
    const int64_t n = int64_t(values.size());
    const int bits = settings().bits;
    const uint32_t top = (uint32_t(1) << bits) - 1;  // the highest code
    EncodedUpdate out{{}, n};
    out.bytes.reserve(size_t(*shape_bytes(n)));
    ByteWriter w(out.bytes);
    write_common_header(w, Method::Quantize, n);
    w.u8(uint8_t(bits));
    w.u32(uint32_t(settings().bucket));

    // The buckets' ends first (they precede the codes), then the codes.
    const int64_t size = bucket_size(settings().bucket, n), buckets = bucket_count(settings().bucket, n);
    std::vector<std::pair<float, float>> ends(static_cast<size_t>(buckets));
    for (int64_t b = 0; b < buckets; ++b) {
      float lo = std::numeric_limits<float>::infinity(), hi = -lo;
      bool finite = true;
      for (int64_t i = b * size; i < std::min(n, (b + 1) * size); ++i) {
        finite = finite && std::isfinite(values[size_t(i)]);
        lo = std::min(lo, values[size_t(i)]);
        hi = std::max(hi, values[size_t(i)]);
      }
      // A bucket holding an infinity or NaN has no range to spread levels over: it decodes as NaN.
      if (!finite) lo = hi = std::numeric_limits<float>::quiet_NaN();
      ends[size_t(b)] = {lo, hi};
      w.f32(lo);
      w.f32(hi);
    }
    BitPacker codes(out.bytes, bits);
    for (int64_t i = 0; i < n; ++i) {
      const auto [lo, hi] = ends[size_t(i / size)];
      const double range = double(hi) - double(lo);
      uint32_t code = 0;
      if (range > 0) {  // false for a constant bucket and for NaN ends
        const double t = (double(values[size_t(i)]) - lo) / range * top;
        const double below = std::floor(t);
        code = uint32_t(below) + (uniform_draw(seed, uint64_t(i)) < t - below ? 1 : 0);
        code = std::min(code, top);
      }
      codes.put(code);
    }
    codes.flush();
    return out;
  }

  std::vector<float> decode(const EncodedUpdate& update) const override {
    ByteReader r(update.bytes, "quantize update");
    const int64_t n = read_common_header(r, Method::Quantize);
    const int bits = r.u8();
    const int64_t bucket = r.u32();
    if (bits < 1 || bits > 16) r.fail("bits " + std::to_string(bits) + " outside 1..16");
    const int64_t size = bucket_size(bucket, n), buckets = bucket_count(bucket, n);
    r.expect_left(uint64_t(8 * buckets + packed_bytes(n, bits)), "the scales and codes");
    std::vector<std::pair<float, float>> ends(static_cast<size_t>(buckets));
    for (auto& [lo, hi] : ends) {
      lo = r.f32();
      hi = r.f32();
    }
    const auto packed = r.bytes(size_t(packed_bytes(n, bits)));
    const double top = double((uint32_t(1) << bits) - 1);
    BitUnpacker codes(packed, bits);
    std::vector<float> out(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      const auto [lo, hi] = ends[size_t(i / size)];
      const double range = double(hi) - double(lo);
      const uint32_t code = codes.get();
      out[size_t(i)] = std::isnan(range) ? std::numeric_limits<float>::quiet_NaN()
                                         : float(double(lo) + range * (code / top));
    }
    return out;
  }

  // Per value: min and max (2), scaling (3), rounding (2), SplitMix64's draw (9 integer ops).
  double do_encode_flops(int64_t n, const Layout&, const EncoderState&) const override { return 16.0 * double(n); }
  // Per value: unpack (2), scale and shift (3).
  double do_decode_flops(int64_t n, const Layout&, const EncoderState&) const override { return 5.0 * double(n); }

  std::optional<int64_t> do_shape_bytes(int64_t n, const Layout&, const EncoderState&) const override {
    return kQuantizeHeaderBytes + 8 * bucket_count(settings().bucket, n) + packed_bytes(n, settings().bits);
  }
};

}  // namespace

std::unique_ptr<Codec> make_quantize(const CodecSettings& s) { return std::make_unique<Quantize>(s); }

}  // namespace fedgrid::compression

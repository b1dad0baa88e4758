#pragma once
// What the codecs share inside sim/compression (not for callers): the header every format
// starts with, the residual's check, the counter-based draws of stochastic rounding, and each
// codec's factory.
#include <cstdint>
#include <memory>
#include <span>

#include "sim/compression/byte_stream.hpp"
#include "sim/compression/codec.hpp"

namespace fedgrid::compression {

// Every format opens with the method (1 byte) and the value count (4 bytes).
inline constexpr int64_t kCommonHeaderBytes = 5;
void write_common_header(ByteWriter& w, Method method, int64_t values);
int64_t read_common_header(ByteReader& r, Method expected);  // the value count

// values + residual, entry by entry (float addition), with the residual checked against the
// values' count; an empty residual counts as zeros.
std::vector<float> with_residual(std::span<const float> values, const EncoderState& state);

// The index-th draw, uniform in [0, 1), of SplitMix64 (Steele et al. 2014) seeded with `seed`:
// counter-based, so each value's draw depends on (seed, index) only, not on the order or the
// thread that draws it.
inline double uniform_draw(uint64_t seed, uint64_t index) {
  uint64_t z = seed + (index + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return double(z >> 11) * 0x1.0p-53;
}

// Buckets of `bucket` values (0: one bucket of all n); none when n is 0.
inline int64_t bucket_size(int64_t bucket, int64_t n) { return bucket > 0 ? bucket : n; }
inline int64_t bucket_count(int64_t bucket, int64_t n) {
  return n == 0 ? 0 : (n + bucket_size(bucket, n) - 1) / bucket_size(bucket, n);
}

std::unique_ptr<Codec> make_quantize(const CodecSettings& s);
std::unique_ptr<Codec> make_topk(const CodecSettings& s);
std::unique_ptr<Codec> make_sign(const CodecSettings& s);
std::unique_ptr<Codec> make_zfp(const CodecSettings& s);
std::unique_ptr<Codec> make_powersgd(const CodecSettings& s);
std::unique_ptr<Codec> make_dgc(const CodecSettings& s);

}  // namespace fedgrid::compression

// topk: the k = ceil(fraction x n) entries largest in magnitude are sent, the rest kept in the
// sender's residual and added to its next update (error feedback: Stich et al. 2018, "Sparsified
// SGD with memory"; Deep Gradient Compression, Lin et al. 2018, accumulates the same way).
// Ties go to the lower index, so the choice is one and the same on every machine.
//
// Format: header [method=2 u8][n u32][k u32][index coding u8] (10 bytes), then the kept
// indices, then their k values as f32 in index order. The indices are coded whichever way is
// smaller: 0, a bitmap of n bits (ceil(n/8) bytes, lowest bit first); or 1, the gaps between
// ascending indices (the first index, then each index minus the previous minus 1) as LEB128
// varints (7 bits a byte); a tie takes the bitmap.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "sim/compression/codec_format.hpp"

namespace fedgrid::compression {
namespace {

constexpr int64_t kTopKHeaderBytes = kCommonHeaderBytes + 4 + 1;
enum IndexCoding : uint8_t { kBitmap = 0, kGaps = 1 };

int64_t varint_bytes(uint64_t v) {
  int64_t b = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++b;
  }
  return b;
}

// ceil(fraction x n) in 1..n, where a product within 1e-9 of an integer is that integer
// (0.07 x 100 is 7.000000000000001 in doubles, and means 7).
int64_t kept_count(double fraction, int64_t n) {
  if (n == 0) return 0;
  const double x = fraction * double(n);
  const double nearest = std::round(x);
  const double k = std::abs(x - nearest) <= 1e-9 * std::max(1.0, x) ? nearest : std::ceil(x);
  return std::clamp(int64_t(k), int64_t(1), n);
}

// Magnitude for the choice: NaN counts as the largest (sent, so the receiver sees it), which
// keeps the order strict.
float magnitude(float v) { return std::isnan(v) ? std::numeric_limits<float>::infinity() : std::abs(v); }

class TopK final : public Codec {
 public:
  using Codec::Codec;
  bool keeps_residual() const override { return true; }

  EncodedUpdate encode(std::span<const float> values, EncoderState& state, uint64_t) const override {
    const int64_t n = int64_t(values.size());
    std::vector<float> v = with_residual(values, state);
    const int64_t k = kept_count(settings().fraction, n);

    std::vector<uint32_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0u);
    auto larger = [&](uint32_t a, uint32_t b) {
      const float ma = magnitude(v[a]), mb = magnitude(v[b]);
      return ma != mb ? ma > mb : a < b;
    };
    std::nth_element(order.begin(), order.begin() + k, order.end(), larger);
    std::vector<uint32_t> kept(order.begin(), order.begin() + k);
    std::sort(kept.begin(), kept.end());

    int64_t gap_bytes = 0;
    for (int64_t j = 0; j < k; ++j) gap_bytes += varint_bytes(gap(kept, j));
    const int64_t bitmap_bytes = (n + 7) / 8;
    const IndexCoding coding = gap_bytes < bitmap_bytes ? kGaps : kBitmap;

    EncodedUpdate out{{}, n};
    out.bytes.reserve(size_t(kTopKHeaderBytes + std::min(gap_bytes, bitmap_bytes) + 4 * k));
    ByteWriter w(out.bytes);
    write_common_header(w, Method::TopK, n);
    w.u32(uint32_t(k));
    w.u8(coding);
    if (coding == kGaps) {
      for (int64_t j = 0; j < k; ++j) w.varint(gap(kept, j));
    } else {
      std::vector<uint8_t> bitmap(size_t(bitmap_bytes), 0);
      for (uint32_t i : kept) bitmap[i / 8] |= uint8_t(1u << (i % 8));
      w.bytes(bitmap);
    }
    for (uint32_t i : kept) w.f32(v[i]);

    // What was sent leaves the residual; the rest stays for the next update.
    for (uint32_t i : kept) v[i] = 0.0f;
    state.residual = std::move(v);
    return out;
  }

  std::vector<float> decode(const EncodedUpdate& update) const override {
    ByteReader r(update.bytes, "topk update");
    const int64_t n = read_common_header(r, Method::TopK);
    const int64_t k = r.u32();
    const uint8_t coding = r.u8();
    if (k > n) r.fail(std::to_string(k) + " entries kept of " + std::to_string(n));
    // Each kept entry takes 4 bytes of value and at least 1 of gap or n / 8 of bitmap in all.
    if (coding == kBitmap) r.expect_left(uint64_t((n + 7) / 8 + 4 * k), "the bitmap and values");
    if (coding == kGaps && uint64_t(5 * k) > r.left()) r.fail(std::to_string(k) + " entries cannot fit");
    std::vector<uint32_t> kept;
    kept.reserve(size_t(k));
    if (coding == kGaps) {
      int64_t next = 0;
      for (int64_t j = 0; j < k; ++j) {
        const int64_t i = next + int64_t(std::min<uint64_t>(r.varint(), uint64_t(n)));
        if (i >= n) r.fail("index " + std::to_string(i) + " past " + std::to_string(n) + " values");
        kept.push_back(uint32_t(i));
        next = i + 1;
      }
    } else if (coding == kBitmap) {
      const auto bitmap = r.bytes(size_t((n + 7) / 8));
      for (int64_t i = 0; i < n; ++i)
        if (bitmap[size_t(i / 8)] >> (i % 8) & 1) kept.push_back(uint32_t(i));
      if (int64_t(kept.size()) != k) r.fail("bitmap marks " + std::to_string(kept.size()) + " entries, not " + std::to_string(k));
    } else {
      r.fail("unknown index coding " + std::to_string(coding));
    }
    std::vector<float> out(size_t(n), 0.0f);
    for (uint32_t i : kept) out[i] = r.f32();
    if (r.left() != 0) r.fail(std::to_string(r.left()) + " bytes after the values");
    return out;
  }

  // Per value: the residual's addition and the magnitude (2), nth_element's comparisons (about
  // 3 on average), the index list and the residual's update (2); then sorting the k kept
  // indices (k log2 k) and coding them (k).
  double encode_flops(int64_t n) const override {
    const double k = double(kept_count(settings().fraction, n));
    return 7.0 * double(n) + k * std::log2(std::max(2.0, k)) + k;
  }
  // Zeroing n values, then placing k.
  double decode_flops(int64_t n) const override { return double(n) + 2.0 * double(kept_count(settings().fraction, n)); }

  // Kept entries evenly spread: every gap (n - k) / k.
  std::optional<int64_t> shape_bytes(int64_t n) const override {
    const int64_t k = kept_count(settings().fraction, n);
    const int64_t gaps = k == 0 ? 0 : k * varint_bytes(uint64_t((n - k) / k));
    const int64_t bitmap = (n + 7) / 8;
    return kTopKHeaderBytes + (gaps < bitmap ? gaps : bitmap) + 4 * k;
  }

 private:
  static uint64_t gap(const std::vector<uint32_t>& kept, int64_t j) {
    return j == 0 ? kept[0] : uint64_t(kept[size_t(j)]) - kept[size_t(j - 1)] - 1;
  }
};

}  // namespace

std::unique_ptr<Codec> make_topk(const CodecSettings& s) { return std::make_unique<TopK>(s); }

}  // namespace fedgrid::compression

// The sparse update topk and dgc share (sparse_format.hpp): the choice of entries and the format.
#include "sim/compression/sparse_format.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

namespace fedgrid::compression {
namespace {

enum IndexCoding : uint8_t { kBitmap = 0, kGaps = 1 };

int64_t varint_bytes(uint64_t v) {
  int64_t b = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++b;
  }
  return b;
}

// Magnitude for the choice: NaN counts as the largest, which keeps the order strict.
float magnitude(float v) { return std::isnan(v) ? std::numeric_limits<float>::infinity() : std::abs(v); }

uint64_t gap(const std::vector<uint32_t>& kept, size_t j) {
  return j == 0 ? kept[0] : uint64_t(kept[j]) - kept[j - 1] - 1;
}

}  // namespace

int64_t kept_count(double fraction, int64_t n) {
  if (n == 0) return 0;
  const double x = fraction * double(n);
  const double nearest = std::round(x);
  const double k = std::abs(x - nearest) <= 1e-9 * std::max(1.0, x) ? nearest : std::ceil(x);
  return std::clamp(int64_t(k), int64_t(1), n);
}

std::vector<uint32_t> largest_entries(std::span<const float> v, int64_t k) {
  std::vector<uint32_t> order(v.size());
  std::iota(order.begin(), order.end(), 0u);
  auto larger = [&](uint32_t a, uint32_t b) {
    const float ma = magnitude(v[a]), mb = magnitude(v[b]);
    return ma != mb ? ma > mb : a < b;
  };
  std::nth_element(order.begin(), order.begin() + k, order.end(), larger);
  std::vector<uint32_t> kept(order.begin(), order.begin() + k);
  std::sort(kept.begin(), kept.end());
  return kept;
}

EncodedUpdate write_sparse(Method method, std::span<const float> v, const std::vector<uint32_t>& kept) {
  const int64_t n = int64_t(v.size()), k = int64_t(kept.size());
  int64_t gap_bytes = 0;
  for (size_t j = 0; j < kept.size(); ++j) gap_bytes += varint_bytes(gap(kept, j));
  const int64_t bitmap_bytes = (n + 7) / 8;
  const IndexCoding coding = gap_bytes < bitmap_bytes ? kGaps : kBitmap;

  EncodedUpdate out{{}, n};
  out.bytes.reserve(size_t(kSparseHeaderBytes + std::min(gap_bytes, bitmap_bytes) + 4 * k));
  ByteWriter w(out.bytes);
  write_common_header(w, method, n);
  w.u32(uint32_t(k));
  w.u8(coding);
  if (coding == kGaps) {
    for (size_t j = 0; j < kept.size(); ++j) w.varint(gap(kept, j));
  } else {
    std::vector<uint8_t> bitmap(size_t(bitmap_bytes), 0);
    for (uint32_t i : kept) bitmap[i / 8] |= uint8_t(1u << (i % 8));
    w.bytes(bitmap);
  }
  for (uint32_t i : kept) w.f32(v[i]);
  return out;
}

std::vector<float> read_sparse(const EncodedUpdate& update, Method method, const char* what) {
  ByteReader r(update.bytes, what);
  const int64_t n = read_common_header(r, method);
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

int64_t sparse_shape_bytes(int64_t n, int64_t k) {
  const int64_t gaps = k == 0 ? 0 : k * varint_bytes(uint64_t((n - k) / k));
  const int64_t bitmap = (n + 7) / 8;
  return kSparseHeaderBytes + (gaps < bitmap ? gaps : bitmap) + 4 * k;
}

double sparse_coding_flops(int64_t k) { return double(k) * std::log2(std::max(2.0, double(k))) + double(k); }

double sparse_decode_flops(int64_t n, int64_t k) { return double(n) + 2.0 * double(k); }

}  // namespace fedgrid::compression

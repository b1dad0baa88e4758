#pragma once
// The sparse update that topk and dgc send (docs/guide/compression.md): the k entries of n
// largest in magnitude, chosen in one strict order, and their bytes:
//   header [method u8][n u32][k u32][index coding u8] (10 bytes), then the kept indices, then
//   their k values as f32 in index order. The indices are coded whichever way is smaller: 0, a
//   bitmap of n bits (ceil(n/8) bytes, lowest bit first); or 1, the gaps between ascending
//   indices (the first index, then each index minus the previous minus 1) as LEB128 varints (7
//   bits a byte); a tie takes the bitmap.
#include <cstdint>
#include <span>
#include <vector>

#include "sim/compression/codec_format.hpp"

namespace fedgrid::compression {

inline constexpr int64_t kSparseHeaderBytes = kCommonHeaderBytes + 4 + 1;

// ceil(fraction x n) in 1..n (0 for no values), where a product within 1e-9 of an integer is
// that integer (0.07 x 100 is 7.000000000000001 in doubles, and means 7).
int64_t kept_count(double fraction, int64_t n);

// The k entries of v largest in magnitude, ascending: ties go to the lower index and a NaN
// counts as the largest (sent, so the receiver sees it), so the choice is one and the same on
// every machine.
std::vector<uint32_t> largest_entries(std::span<const float> v, int64_t k);

// The update that carries v's entries at `kept` (ascending) under `method`'s first byte.
EncodedUpdate write_sparse(Method method, std::span<const float> v, const std::vector<uint32_t>& kept);
// Its values: zeros but at the kept indices. Bytes of another method or damaged are
// std::invalid_argument naming `what` ("topk update").
std::vector<float> read_sparse(const EncodedUpdate& update, Method method, const char* what);

// The size of k entries of n evenly spread (every gap (n - k) / k), as a timing-only run charges.
int64_t sparse_shape_bytes(int64_t n, int64_t k);
// Work once the k entries are chosen: sorting their indices (k log2 k) and coding them (k).
double sparse_coding_flops(int64_t k);
// Work to decode: zeroing n values, then placing k.
double sparse_decode_flops(int64_t n, int64_t k);

}  // namespace fedgrid::compression

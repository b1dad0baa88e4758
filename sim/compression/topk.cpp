// topk: the k = ceil(fraction x n) entries largest in magnitude are sent, the rest kept in the
// sender's residual and added to its next update (error feedback: Stich et al. 2018, "Sparsified
// SGD with memory"). Deep Gradient Compression (Lin et al. 2018) adds momentum correction, local
// clipping, momentum factor masking and a sparsity warm-up to this: method dgc (dgc.cpp).
// Ties go to the lower index, so the choice is one and the same on every machine.
//
// Format (sparse_format.hpp): header [method=2 u8][n u32][k u32][index coding u8] (10 bytes),
// then the kept indices (a bitmap or gap varints, whichever is smaller), then their k values
// as f32 in index order.
#include <algorithm>
#include <cmath>

#include "sim/compression/sparse_format.hpp"

namespace fedgrid::compression {
namespace {

class TopK final : public Codec {
 public:
  using Codec::Codec;
  bool keeps_residual() const override { return true; }

  EncodedUpdate do_encode(std::span<const float> values, const Layout&, EncoderState& state, uint64_t) const override {
    std::vector<float> v = with_residual(values, state);
    const std::vector<uint32_t> kept = largest_entries(v, kept_count(settings().fraction, int64_t(v.size())));
    EncodedUpdate out = write_sparse(Method::TopK, v, kept);
    // What was sent leaves the residual; the rest stays for the next update.
    for (uint32_t i : kept) v[i] = 0.0f;
    state.residual = std::move(v);
    return out;
  }

  std::vector<float> decode(const EncodedUpdate& update) const override {
    return read_sparse(update, Method::TopK, "topk update");
  }

  // Per value: the residual's addition and the magnitude (2), nth_element's comparisons (about
  // 3 on average), the index list and the residual's update (2); then sorting the k kept
  // indices (k log2 k) and coding them (k).
  double do_encode_flops(int64_t n, const Layout&, const EncoderState&) const override {
    const double k = double(kept_count(settings().fraction, n));
    return 7.0 * double(n) + k * std::log2(std::max(2.0, k)) + k;
  }
  // Zeroing n values, then placing k.
  double do_decode_flops(int64_t n, const Layout&, const EncoderState&) const override {
    return sparse_decode_flops(n, kept_count(settings().fraction, n));
  }

  // Kept entries evenly spread: every gap (n - k) / k.
  std::optional<int64_t> do_shape_bytes(int64_t n, const Layout&, const EncoderState&) const override {
    return sparse_shape_bytes(n, kept_count(settings().fraction, n));
  }
};

}  // namespace

std::unique_ptr<Codec> make_topk(const CodecSettings& s) { return std::make_unique<TopK>(s); }

}  // namespace fedgrid::compression

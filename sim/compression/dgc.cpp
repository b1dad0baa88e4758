// dgc: Deep Gradient Compression as published (Lin, Han, Mao, Wang and Dally, "Deep Gradient
// Compression: Reducing the Communication Bandwidth for Distributed Training", ICLR 2018),
// Algorithm 1 on one node, for an update g:
//   local gradient clipping   g <- g x min(1, (clip_norm / sqrt(N)) / ||g||_2): the threshold a
//                             node would get if the N nodes' gradients were alike (clip_norm is
//                             the global one; 0: no clipping). Before the accumulation.
//   momentum correction       u <- m u + g;  v <- v + u   (the velocity is accumulated, not g)
//   sparsification            send the k entries of v largest in magnitude (topk's choice and
//                             format, sparse_format.hpp), k = ceil((1 - sparsity) x n)
//   accumulation              v <- 0 where sent (v is the error feedback, `residual`)
//   momentum factor masking   u <- 0 where sent (with masking on)
//   warm-up                   the e-th encoding (from 0) of the first warmup_rounds keeps
//                             4^-(e+1) of the entries: sparsity 75%, 93.75%, 98.4375%, 99.6%, then
//                             the final one (99.9% by default), as the paper's first four epochs.
// The paper's defaults: sparsity 99.9%, momentum 0.9 (its SGD's), masking on, warm-up over four
// epochs; it clips only where the training clips (its RNNs), so clip_norm defaults to 0.
//
// What DGC's per-step rules mean per round here. DGC compresses each worker's gradient at every
// iteration, and its momentum correction takes the place of the optimiser's momentum (the
// workers apply the summed sparse v with plain SGD). In a federation what a hospital sends is
// its update, the trained model minus the pair's reference (the transfer stage encodes that
// difference), once a round: that update is g here, so u is a momentum over the rounds'
// updates (the local training keeps its own optimiser), v accumulates them, and the receiver
// adds the sparse v it decodes to its reference. The warm-up counts the pair's encodings, i.e.
// rounds in which this sender sent to this receiver: one round is the exchange DGC's epochs
// stand for (the paper's four warm-up epochs of 90+ are a few percent of training; four rounds
// of a federated run are of the same order). N is the federation's hospitals on the uplink (the
// updates one server sums), 1 on the downlink. Exact top-k replaces the paper's threshold
// estimated on a 0.1-1% sample (a speed trick that keeps about k entries), and the selection
// is over the whole update, as Algorithm 1 writes it, where the paper's code selects per layer.
// With momentum 0, no clipping and no warm-up, dgc sends what topk sends.
//
// Format: topk's (sparse_format.hpp) with method=6.
#include <algorithm>
#include <cmath>

#include "sim/compression/sparse_format.hpp"

namespace fedgrid::compression {
namespace {

class Dgc final : public Codec {
 public:
  using Codec::Codec;
  bool keeps_residual() const override { return true; }

  EncodedUpdate do_encode(std::span<const float> values, const Layout&, EncoderState& state, uint64_t) const override {
    const int64_t n = int64_t(values.size());
    for (const auto* held : {&state.residual, &state.momentum})
      if (!held->empty() && int64_t(held->size()) != n)
        throw std::invalid_argument("dgc's state holds " + std::to_string(held->size()) + " values, the update " +
                                    std::to_string(n) + ": reset the state when the shape of what is sent changes");
    std::vector<float> g(values.begin(), values.end());
    clip(g);
    std::vector<float> u = state.momentum.empty() ? std::vector<float>(size_t(n), 0.0f) : state.momentum;
    std::vector<float> v = state.residual.empty() ? std::vector<float>(size_t(n), 0.0f) : state.residual;
    const float m = float(settings().momentum);
    for (size_t i = 0; i < g.size(); ++i) {
      u[i] = m * u[i] + g[i];
      v[i] += u[i];
    }
    const std::vector<uint32_t> kept = largest_entries(v, keep_count(n, state));
    EncodedUpdate out = write_sparse(Method::Dgc, v, kept);
    for (uint32_t i : kept) {
      v[i] = 0.0f;
      if (settings().masking) u[i] = 0.0f;
    }
    state.residual = std::move(v);
    state.momentum = std::move(u);
    ++state.encodings;
    return out;
  }

  std::vector<float> decode(const EncodedUpdate& update) const override {
    return read_sparse(update, Method::Dgc, "dgc update");
  }

  void count_encoding(EncoderState& state) const override { ++state.encodings; }

  // Per value: clipping's square and sum (2) and scaling (1) when on; the momentum's
  // multiply-add (2) and the accumulation (1); the magnitude (1), nth_element's comparisons
  // (about 3), the index list (1), and storing u and v (2). Then topk's sorting and coding of
  // the k kept (k log2 k + k), and masking's k zeros.
  double do_encode_flops(int64_t n, const Layout&, const EncoderState& state) const override {
    const int64_t k = keep_count(n, state);
    const double per_value = 10.0 + (settings().clip_norm > 0 ? 3.0 : 0.0);
    return per_value * double(n) + sparse_coding_flops(k) + (settings().masking ? double(k) : 0.0);
  }
  double do_decode_flops(int64_t n, const Layout&, const EncoderState& state) const override {
    return sparse_decode_flops(n, keep_count(n, state));
  }
  // Kept entries evenly spread, as topk's; k as the state's warm-up has it.
  std::optional<int64_t> do_shape_bytes(int64_t n, const Layout&, const EncoderState& state) const override {
    return sparse_shape_bytes(n, keep_count(n, state));
  }

 private:
  // The share of entries the e-th encoding keeps: 4^-(e+1) during the warm-up (never fewer
  // than once warmed up), then 1 - sparsity.
  double density(int64_t encodings) const {
    const double final_density = 1.0 - settings().sparsity;
    if (encodings >= settings().warmup_rounds) return final_density;
    return std::max(final_density, std::ldexp(1.0, int(-2 * std::min<int64_t>(encodings + 1, 600))));
  }
  int64_t keep_count(int64_t n, const EncoderState& state) const { return kept_count(density(state.encodings), n); }

  // Local gradient clipping: the L2 norm in double precision, in index order.
  void clip(std::vector<float>& g) const {
    if (settings().clip_norm <= 0) return;
    double sum = 0;
    for (float x : g) sum += double(x) * double(x);
    const double norm = std::sqrt(sum), threshold = settings().clip_norm / std::sqrt(double(settings().nodes));
    if (!(norm > threshold)) return;
    const double scale = threshold / norm;
    for (float& x : g) x = float(double(x) * scale);
  }
};

}  // namespace

std::unique_ptr<Codec> make_dgc(const CodecSettings& s) { return std::make_unique<Dgc>(s); }

}  // namespace fedgrid::compression

// powersgd: PowerSGD (Vogels, Karimireddy and Jaggi, "PowerSGD: Practical Low-Rank Gradient
// Compression for Distributed Optimization", NeurIPS 2019), Algorithm 1 with error feedback
// (their Algorithm 2) and the warm start:
//   - each tensor of two or more dimensions is a matrix M of rows = its first dimension and
//     columns = the rest (a conv's out x in*k*k, a linear layer's out x in); the rest (biases,
//     batch-norm vectors, counters) is sent as it is, as the paper does;
//   - M is the update plus the residual (error feedback); with r = min(rank, rows, columns):
//       P = M Q;  P^ = orthogonalise(P) (Gram-Schmidt);  Q = M^T P^;  send P^ and Q;
//     the receiver decodes P^ Q^T; the residual becomes M - P^ Q^T;
//   - Q is warm-started: the next encoding's Q is this one's (one power iteration a step, as
//     the paper's experiments run it); the first is drawn i.i.d. standard normal from the
//     transfer's seed (data/rng.hpp), never from global state.
// Departures, each forced by a sender that compresses alone: the paper all-reduces P and Q
// between the workers before orthogonalising, so every worker holds the same Q; here each
// (sender, receiver) pair keeps its own Q, and the receiver averages decoded updates. The
// paper's code adds 1e-8 to each column's norm; here a column of norm 0 is left at 0 (the
// decoded matrix then lacks it) and the pair keeps that column's previous Q, so the power
// iteration restarts once M moves again (a warm-started zero column would stay zero forever).
// Products are accumulated in double precision in index order: the same bytes on any machine.
//
// Format: header [method=5 u8][n u32][rank u32][tensors u32] (13 bytes); per tensor
// [rows u32][columns u32] (8 bytes; columns 0: a tensor sent as it is, of `rows` values); then
// per tensor in order: a matrix's P^ (rows x r f32, row-major) and Q (columns x r f32,
// row-major), or the tensor's values (f32).
#include <algorithm>
#include <cmath>

#include "data/rng.hpp"
#include "sim/compression/codec_format.hpp"

namespace fedgrid::compression {
namespace {

constexpr int64_t kPowerSgdHeaderBytes = kCommonHeaderBytes + 4 + 4;
constexpr int64_t kPowerSgdShapeBytes = 8;

// One tensor of the update as powersgd sends it.
struct LowRankBlock {
  int64_t offset = 0;     // its first value in the flat update
  int64_t rows = 0;       // a matrix's rows, or the values of a tensor sent as it is
  int64_t cols = 0;       // a matrix's columns; 0: sent as it is
  int64_t rank = 0;       // min(rank, rows, cols); 0 for a tensor sent as it is
  int64_t query_at = 0;   // its Q (cols x rank) in the state's query
  bool matrix() const { return cols > 0; }
  int64_t values() const { return matrix() ? rows * cols : rows; }
  int64_t payload_floats() const { return matrix() ? rank * (rows + cols) : rows; }
};

LowRankBlock matrix_block(int64_t offset, int64_t rows, int64_t cols, int64_t rank) {
  return {offset, rows, cols, std::min({rank, rows, cols}), 0};
}

// The blocks of an update of n values: one per tensor of the layout (one vector without one).
std::vector<LowRankBlock> blocks_of(const Layout& layout, int64_t n, int64_t rank) {
  std::vector<LowRankBlock> blocks;
  if (layout.empty()) {
    if (n > 0) blocks.push_back({0, n, 0, 0, 0});
    return blocks;
  }
  int64_t at = 0;
  for (const auto& t : layout) {
    const int64_t values = t.values();
    blocks.push_back(t.dims.size() >= 2 && values > 0 ? matrix_block(at, t.dims[0], values / t.dims[0], rank)
                                                      : LowRankBlock{at, values, 0, 0, 0});
    at += values;
  }
  return blocks;
}

// Places the query of each matrix in the state's query; returns its whole size.
int64_t place_queries(std::vector<LowRankBlock>& blocks) {
  int64_t q = 0;
  for (auto& b : blocks)
    if (b.matrix()) b.query_at = q, q += b.cols * b.rank;
  return q;
}

// out[i x cols + j] = sum over c of p[i x r + c] q[j x r + c]: the decoded matrix, the same
// floats for the encoder's residual and the receiver.
void reconstruct(const float* p, const float* q, const LowRankBlock& b, float* out) {
  const int64_t r = b.rank;
  for (int64_t i = 0; i < b.rows; ++i)
    for (int64_t j = 0; j < b.cols; ++j) {
      double sum = 0;
      for (int64_t c = 0; c < r; ++c) sum += double(p[i * r + c]) * double(q[j * r + c]);
      out[i * b.cols + j] = float(sum);
    }
}

// Modified Gram-Schmidt on the columns of p (rows x r, row-major), as the paper's code does it
// (without its 1e-8); returns which columns had norm 0 (left at 0).
std::vector<bool> orthogonalise(std::vector<double>& p, int64_t rows, int64_t r) {
  std::vector<bool> zero(size_t(r), false);
  for (int64_t c = 0; c < r; ++c) {
    double norm = 0;
    for (int64_t i = 0; i < rows; ++i) norm += p[size_t(i * r + c)] * p[size_t(i * r + c)];
    norm = std::sqrt(norm);
    if (!(norm > 0)) {
      zero[size_t(c)] = true;
      for (int64_t i = 0; i < rows; ++i) p[size_t(i * r + c)] = 0;
      continue;
    }
    for (int64_t i = 0; i < rows; ++i) p[size_t(i * r + c)] /= norm;
    for (int64_t d = c + 1; d < r; ++d) {
      double dot = 0;
      for (int64_t i = 0; i < rows; ++i) dot += p[size_t(i * r + c)] * p[size_t(i * r + d)];
      for (int64_t i = 0; i < rows; ++i) p[size_t(i * r + d)] -= dot * p[size_t(i * r + c)];
    }
  }
  return zero;
}

class PowerSgd final : public Codec {
 public:
  using Codec::Codec;
  bool keeps_residual() const override { return true; }
  bool reads_layout() const override { return true; }

  EncodedUpdate do_encode(std::span<const float> values, const Layout& layout, EncoderState& state,
                          uint64_t seed) const override {
    const int64_t n = int64_t(values.size());
    std::vector<float> v = with_residual(values, state);
    std::vector<LowRankBlock> blocks = blocks_of(layout, n, settings().rank);
    const int64_t query_size = place_queries(blocks);
    if (state.query.empty() && query_size > 0) {
      Rng rng(seed);  // the pair's first Q, i.i.d. standard normal
      state.query.resize(size_t(query_size));
      for (auto& q : state.query) q = float(rng.normal());
    } else if (int64_t(state.query.size()) != query_size) {
      throw std::invalid_argument("powersgd's query holds " + std::to_string(state.query.size()) +
                                  " values, the update's matrices take " + std::to_string(query_size) +
                                  ": reset the state when the shape of what is sent changes");
    }

    EncodedUpdate out{{}, n};
    out.bytes.reserve(size_t(bytes_of(blocks)));
    ByteWriter w(out.bytes);
    write_common_header(w, Method::PowerSgd, n);
    w.u32(uint32_t(settings().rank));
    w.u32(uint32_t(blocks.size()));
    for (const auto& b : blocks) {
      w.u32(uint32_t(b.rows));
      w.u32(uint32_t(b.cols));
    }
    std::vector<float> decoded(static_cast<size_t>(n));
    for (const auto& b : blocks) {
      const float* m = v.data() + b.offset;
      if (!b.matrix()) {
        for (int64_t i = 0; i < b.rows; ++i) w.f32(m[i]);
        std::copy(m, m + b.rows, decoded.begin() + b.offset);
        continue;
      }
      const int64_t rows = b.rows, cols = b.cols, r = b.rank;
      float* query = state.query.data() + b.query_at;
      // P = M Q.
      std::vector<double> p(size_t(rows * r), 0.0);
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j)
          for (int64_t c = 0; c < r; ++c) p[size_t(i * r + c)] += double(m[i * cols + j]) * double(query[j * r + c]);
      const std::vector<bool> zero = orthogonalise(p, rows, r);
      const std::vector<float> sent_p(p.begin(), p.end());
      // Q = M^T P^, with P^ as sent.
      std::vector<double> q(size_t(cols * r), 0.0);
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j)
          for (int64_t c = 0; c < r; ++c) q[size_t(j * r + c)] += double(m[i * cols + j]) * double(sent_p[size_t(i * r + c)]);
      const std::vector<float> sent_q(q.begin(), q.end());
      for (float x : sent_p) w.f32(x);
      for (float x : sent_q) w.f32(x);
      reconstruct(sent_p.data(), sent_q.data(), b, decoded.data() + b.offset);
      // The warm start: this Q is the next one's, but for a column of norm 0 (kept from before).
      for (int64_t j = 0; j < cols; ++j)
        for (int64_t c = 0; c < r; ++c)
          if (!zero[size_t(c)]) query[j * r + c] = sent_q[size_t(j * r + c)];
    }
    // Error feedback: what the approximation left out.
    for (size_t i = 0; i < v.size(); ++i) v[i] -= decoded[i];
    state.residual = std::move(v);
    return out;
  }

  std::vector<float> decode(const EncodedUpdate& update) const override {
    ByteReader r(update.bytes, "powersgd update");
    const int64_t n = read_common_header(r, Method::PowerSgd);
    const int64_t rank = r.u32(), tensors = r.u32();
    if (uint64_t(tensors) > r.left() / kPowerSgdShapeBytes)
      r.fail(std::to_string(tensors) + " tensors announced, " + std::to_string(r.left()) + " bytes left");
    std::vector<LowRankBlock> blocks;
    blocks.reserve(size_t(tensors));
    int64_t at = 0, payload = 0;
    for (int64_t t = 0; t < tensors; ++t) {
      const int64_t rows = r.u32(), cols = r.u32();
      if (cols > 0 && rows > (n - at) / cols) r.fail("tensor " + std::to_string(t) + " runs past " + std::to_string(n) + " values");
      if (cols == 0 && rows > n - at) r.fail("tensor " + std::to_string(t) + " runs past " + std::to_string(n) + " values");
      const LowRankBlock b = cols > 0 ? matrix_block(at, rows, cols, rank) : LowRankBlock{at, rows, 0, 0, 0};
      if (b.matrix() && b.rank < 1) r.fail("rank 0");
      at += b.values(), payload += b.payload_floats();
      blocks.push_back(b);
    }
    if (at != n) r.fail("the tensors hold " + std::to_string(at) + " values, not " + std::to_string(n));
    r.expect_left(uint64_t(4 * payload), "the tensors' factors and values");
    std::vector<float> out(static_cast<size_t>(n));
    for (const auto& b : blocks) {
      if (!b.matrix()) {
        for (int64_t i = 0; i < b.rows; ++i) out[size_t(b.offset + i)] = r.f32();
        continue;
      }
      std::vector<float> p(size_t(b.rows * b.rank)), q(size_t(b.cols * b.rank));
      for (auto& x : p) x = r.f32();
      for (auto& x : q) x = r.f32();
      reconstruct(p.data(), q.data(), b, out.data() + b.offset);
    }
    return out;
  }

  // Per value: the residual's addition and the decoded value's subtraction (2). Per matrix of
  // n rows, m columns and rank r: P = M Q (2nmr: a multiply-add counts 2), Gram-Schmidt
  // (per column its norm 2n, square root 1, division n; per pair of columns a dot product 2n
  // and an update 2n: r(3n + 1) + 2n r(r - 1)), Q = M^T P^ (2nmr), and for the error feedback
  // the decoded matrix P^ Q^T (2nmr): the paper's two products and orthogonalisation, plus the
  // one the residual needs. The first encoding's draw of Q (m r normal draws) is not counted.
  double do_encode_flops(int64_t n, const Layout& layout, const EncoderState&) const override {
    double ops = 2.0 * double(n);
    for (const auto& b : blocks_of(layout, n, settings().rank)) {
      if (!b.matrix()) continue;
      const double rows = double(b.rows), cols = double(b.cols), r = double(b.rank);
      ops += 6.0 * rows * cols * r + r * (3.0 * rows + 1.0) + 2.0 * rows * r * (r - 1.0);
    }
    return ops;
  }
  // Per matrix the product P^ Q^T (2nmr); per value sent as it is, its copy (1).
  double do_decode_flops(int64_t n, const Layout& layout, const EncoderState&) const override {
    double ops = 0;
    for (const auto& b : blocks_of(layout, n, settings().rank))
      ops += b.matrix() ? 2.0 * double(b.rows) * double(b.cols) * double(b.rank) : double(b.rows);
    return ops;
  }

  // Exact: the size depends on the shapes only.
  std::optional<int64_t> do_shape_bytes(int64_t n, const Layout& layout, const EncoderState&) const override {
    return bytes_of(blocks_of(layout, n, settings().rank));
  }

 private:
  static int64_t bytes_of(const std::vector<LowRankBlock>& blocks) {
    int64_t bytes = kPowerSgdHeaderBytes + kPowerSgdShapeBytes * int64_t(blocks.size());
    for (const auto& b : blocks) bytes += 4 * b.payload_floats();
    return bytes;
  }
};

}  // namespace

std::unique_ptr<Codec> make_powersgd(const CodecSettings& s) { return std::make_unique<PowerSgd>(s); }

}  // namespace fedgrid::compression

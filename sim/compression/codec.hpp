#pragma once
// Compressed updates (issue 38): a codec turns a model's flat float state (or an update's) into
// the bytes that really cross the network, header included, and back. Six methods:
//   quantize  b-bit stochastic uniform quantization per bucket (QSGD, Alistarh et al. 2017;
//             FedPAQ, Reisizadeh et al. 2020)
//   topk      the largest entries by magnitude, with error feedback (Stich et al. 2018; Deep
//             Gradient Compression, Lin et al. 2018)
//   sign      scaled sign, with error feedback (signSGD, Bernstein et al. 2018; EF-SignSGD,
//             Karimireddy et al. 2019)
//   zfp       libzfp's error-bounded or fixed-rate float compression (Lindstrom 2014)
//   powersgd  rank-r power iteration per weight matrix, with error feedback and a warm-started
//             Q (Vogels, Karimireddy and Jaggi 2019)
//   dgc       Deep Gradient Compression as published (Lin et al. 2018): top-k with momentum
//             correction, local clipping, momentum factor masking and the sparsity warm-up
// Byte formats, settings and papers: docs/guide/compression.md. No torch, no SimGrid: a codec
// is plain arithmetic on a span of floats, the same bytes for the same input and seed on any
// machine with IEEE floats and on any number of threads (no shared state, no global RNG).
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/compression/codec_settings.hpp"

namespace fedgrid::compression {

// What a codec produced: the payload as it crosses the network, its header included.
struct EncodedUpdate {
  std::vector<uint8_t> bytes;
  int64_t values = 0;  // floats it decodes to
  int64_t size() const { return int64_t(bytes.size()); }
};

// One tensor of a flat state: its dimensions, outermost first (none: a scalar).
struct TensorShape {
  std::vector<int64_t> dims;
  int64_t values() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
  bool operator==(const TensorShape&) const = default;
};
// The tensors a flat update is made of, in order (a model's: models::state_layout, parameters
// then buffers). Empty: one vector of all the values. Only powersgd reads it (it reshapes each
// tensor of two or more dimensions into a matrix); the other codecs see a flat update.
using Layout = std::vector<TensorShape>;

// What a sender keeps from one transfer to its next (one per sender and receiver). Empty until
// a codec that keeps it first encodes; reset it when the shape of what is sent changes.
struct EncoderState {
  // Error feedback, what earlier encodings left out (topk, sign, powersgd; dgc's accumulated
  // velocity v).
  std::vector<float> residual;
  std::vector<float> momentum;  // dgc: the momentum-corrected velocity u
  std::vector<float> query;     // powersgd: every matrix's Q (columns x rank, row-major), warm-started
  int64_t encodings = 0;        // dgc: its encodings so far, the clock of its sparsity warm-up
  bool operator==(const EncoderState&) const = default;
};
// The state as bytes for a checkpoint (format in docs/guide/compression.md), and back;
// damaged bytes are std::invalid_argument.
std::vector<uint8_t> save_state(const EncoderState& state);
EncoderState load_state(std::span<const uint8_t> bytes);

class Codec {
 public:
  explicit Codec(CodecSettings settings) : settings_(settings) {}
  virtual ~Codec() = default;
  const CodecSettings& settings() const { return settings_; }
  // The method and the settings it reads: "topk(fraction=0.01)" (describe(settings())).
  std::string describe() const { return compression::describe(settings_); }
  // Whether encode() reads and updates state.residual (topk, sign, powersgd, dgc).
  virtual bool keeps_residual() const = 0;
  // Whether the layout changes what it encodes, its size or its work (powersgd): the caller
  // need not work out a layout for the others.
  virtual bool reads_layout() const { return false; }

  // Encodes `values` (plus the residual, for a codec that keeps one; the residual becomes
  // what this encoding leaves out: values + old residual - decoded). `seed` drives stochastic
  // rounding and powersgd's first Q: the same values, state, seed and layout give the same
  // bytes. At most 2^32 - 1 values; a layout that does not add up to them is
  // std::invalid_argument.
  EncodedUpdate encode(std::span<const float> values, EncoderState& state, uint64_t seed, const Layout& layout = {}) const;
  // The values the receiver gets; bytes this codec did not write are std::invalid_argument.
  virtual std::vector<float> decode(const EncodedUpdate& update) const = 0;
  // An update that never arrived leaves nothing out: its decoded values go back into the
  // residual, which becomes everything not delivered (values + old residual; exactly for topk,
  // to float rounding for sign). No-op for codecs without a residual.
  void restore_undelivered(EncoderState& state, const EncodedUpdate& lost) const;

  // A transfer that holds no values (a timing-only run) advances the state as its encoding
  // would where that does not depend on the values: dgc's count of encodings. No-op otherwise.
  virtual void count_encoding(EncoderState&) const {}

  // Arithmetic operations to encode / decode n values (estimates counted from each codec's
  // loops, docs/guide/compression.md), to charge as compute on the host that does it; the
  // layout (powersgd) and the state (dgc's warm-up: how many entries it keeps) as for encode.
  double encode_flops(int64_t n, const Layout& layout = {}, const EncoderState& state = {}) const;
  double decode_flops(int64_t n, const Layout& layout = {}, const EncoderState& state = {}) const;
  // The encoded size of n values when it follows from n alone (a timing-only run holds no
  // values): exact for quantize, sign, powersgd and zfp's rate mode; for topk and dgc the size
  // with the kept entries evenly spread; nullopt for zfp's accuracy mode, whose size depends on
  // the values.
  std::optional<int64_t> shape_bytes(int64_t n, const Layout& layout = {}, const EncoderState& state = {}) const;

 private:
  // What each codec implements; the public functions check the layout against n first.
  virtual EncodedUpdate do_encode(std::span<const float> values, const Layout& layout, EncoderState& state,
                                  uint64_t seed) const = 0;
  virtual double do_encode_flops(int64_t n, const Layout& layout, const EncoderState& state) const = 0;
  virtual double do_decode_flops(int64_t n, const Layout& layout, const EncoderState& state) const = 0;
  virtual std::optional<int64_t> do_shape_bytes(int64_t n, const Layout& layout, const EncoderState& state) const = 0;
  CodecSettings settings_;
};

// The codec `s` describes; settings with problems are std::invalid_argument listing them (the
// scenario layer reports settings_problems() as input errors first).
std::unique_ptr<Codec> make_codec(const CodecSettings& s);

}  // namespace fedgrid::compression

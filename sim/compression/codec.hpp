#pragma once
// Compressed updates (issue 38): a codec turns a model's flat float state (or an update's) into
// the bytes that really cross the network, header included, and back. Four methods:
//   quantize  b-bit stochastic uniform quantization per bucket (QSGD, Alistarh et al. 2017;
//             FedPAQ, Reisizadeh et al. 2020)
//   topk      the largest entries by magnitude, with error feedback (Stich et al. 2018; Deep
//             Gradient Compression, Lin et al. 2018)
//   sign      scaled sign, with error feedback (signSGD, Bernstein et al. 2018; EF-SignSGD,
//             Karimireddy et al. 2019)
//   zfp       libzfp's error-bounded or fixed-rate float compression (Lindstrom 2014)
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

// What a sender keeps from one transfer to its next (one per sender and direction): the
// error-feedback residual, what its earlier encodings left out. Empty until a codec that keeps
// one first encodes; reset it when the shape of what is sent changes.
struct EncoderState {
  std::vector<float> residual;
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
  // Whether encode() reads and updates state.residual (topk, sign).
  virtual bool keeps_residual() const = 0;

  // Encodes `values` (plus the residual, for a codec that keeps one; the residual becomes
  // what this encoding leaves out: values + old residual - decoded). `seed` drives stochastic
  // rounding: the same values, state and seed give the same bytes. At most 2^32 - 1 values.
  virtual EncodedUpdate encode(std::span<const float> values, EncoderState& state, uint64_t seed) const = 0;
  // The values the receiver gets; bytes this codec did not write are std::invalid_argument.
  virtual std::vector<float> decode(const EncodedUpdate& update) const = 0;
  // An update that never arrived leaves nothing out: its decoded values go back into the
  // residual, which becomes everything not delivered (values + old residual; exactly for topk,
  // to float rounding for sign). No-op for codecs without a residual.
  void restore_undelivered(EncoderState& state, const EncodedUpdate& lost) const;

  // Arithmetic operations to encode / decode n values (estimates counted from each codec's
  // loops, docs/guide/compression.md), to charge as compute on the host that does it.
  virtual double encode_flops(int64_t n) const = 0;
  virtual double decode_flops(int64_t n) const = 0;
  // The encoded size of n values when it follows from n alone (a timing-only run holds no
  // values): exact for quantize, sign and zfp's rate mode; for topk the size with the kept
  // entries evenly spread; nullopt for zfp's accuracy mode, whose size depends on the values.
  virtual std::optional<int64_t> shape_bytes(int64_t n) const = 0;

 private:
  CodecSettings settings_;
};

// The codec `s` describes; settings with problems are std::invalid_argument listing them (the
// scenario layer reports settings_problems() as input errors first).
std::unique_ptr<Codec> make_codec(const CodecSettings& s);

}  // namespace fedgrid::compression

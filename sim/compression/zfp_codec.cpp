// zfp: the state as a 1-D float array through libzfp's C API (Lindstrom 2014, "Fixed-rate
// compressed floating-point arrays"), as APPFL offers error-bounded lossy compression of
// updates: blocks of 4 values share an exponent, are decorrelated by zfp's lifting transform
// and coded bit plane by bit plane. Accuracy mode codes planes until the error is within the
// bound; rate mode spends a fixed number of bits per block. No residual (APPFL keeps none).
// zfp runs serially here (its default policy): the same bytes on any thread count.
//
// Format: header [method=4 u8][n u32][mode u8: 0 accuracy, 1 rate][error bound or rate f64]
// (14 bytes), then zfp's own stream, in whole words of libzfp's stream_word_bits (8 in
// Debian's build, so whole bytes; a build with 64-bit words writes them in the machine's byte
// order). In rate mode a block takes max(round(4 x rate), 9) bits (zfp's floor for a float
// block: a sign and an exponent), so the stream is ceil(ceil(n/4) x bits / word) words.
#include <zfp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

#include "sim/compression/codec_format.hpp"

namespace fedgrid::compression {
namespace {

constexpr int64_t kZfpHeaderBytes = kCommonHeaderBytes + 1 + 8;

// libzfp's objects, closed however the call ends.
struct ZfpStream {
  zfp_stream* zfp = zfp_stream_open(nullptr);
  zfp_field* field = nullptr;
  bitstream* bits = nullptr;
  ~ZfpStream() {
    if (bits) stream_close(bits);
    if (field) zfp_field_free(field);
    zfp_stream_close(zfp);
  }
  void set_mode(ZfpMode mode, double parameter) {
    if (mode == ZfpMode::Accuracy) zfp_stream_set_accuracy(zfp, parameter);
    else zfp_stream_set_rate(zfp, parameter, zfp_type_float, 1, zfp_false);
  }
};

class Zfp final : public Codec {
 public:
  using Codec::Codec;
  bool keeps_residual() const override { return false; }

  EncodedUpdate do_encode(std::span<const float> values, const Layout&, EncoderState&, uint64_t) const override {
    const int64_t n = int64_t(values.size());
    EncodedUpdate out{{}, n};
    ByteWriter w(out.bytes);
    write_common_header(w, Method::Zfp, n);
    w.u8(uint8_t(settings().zfp_mode));
    w.f64(parameter());
    if (n == 0) return out;

    ZfpStream s;
    // zfp only reads the array when compressing; its field type takes a non-const pointer.
    s.field = zfp_field_1d(const_cast<float*>(values.data()), zfp_type_float, size_t(n));
    s.set_mode(settings().zfp_mode, parameter());
    std::vector<uint64_t> buffer((zfp_stream_maximum_size(s.zfp, s.field) + 7) / 8);
    s.bits = stream_open(buffer.data(), buffer.size() * 8);
    zfp_stream_set_bit_stream(s.zfp, s.bits);
    zfp_stream_rewind(s.zfp);
    const size_t written = zfp_compress(s.zfp, s.field);
    if (written == 0) throw std::runtime_error("zfp could not compress " + std::to_string(n) + " values");
    w.bytes({reinterpret_cast<const uint8_t*>(buffer.data()), written});
    return out;
  }

  std::vector<float> decode(const EncodedUpdate& update) const override {
    ByteReader r(update.bytes, "zfp update");
    const int64_t n = read_common_header(r, Method::Zfp);
    const uint8_t mode = r.u8();
    const double param = r.f64();
    if (mode > uint8_t(ZfpMode::Rate)) r.fail("unknown zfp mode " + std::to_string(mode));
    CodecSettings written{.method = Method::Zfp, .zfp_mode = ZfpMode(mode), .error_bound = param, .rate = param};
    if (auto problems = settings_problems(written); !problems.empty()) r.fail(problems[0].setting + " " + problems[0].message);
    // zfp spends at least one bit on a block of 4 values, so n is bounded by the stream's size.
    if (uint64_t((n + 3) / 4) > 8 * uint64_t(r.left())) r.fail(std::to_string(n) + " values cannot fit");
    std::vector<float> out(static_cast<size_t>(n));
    if (n == 0) return out;

    ZfpStream s;
    s.field = zfp_field_1d(out.data(), zfp_type_float, size_t(n));
    s.set_mode(ZfpMode(mode), param);
    // zfp reads whole words and does not check the stream's end: the buffer holds as many bytes
    // as the mode could ever take for n values (zero past the stream), so damaged bytes cannot
    // make it read beyond.
    const auto stream = r.bytes(r.left());
    const size_t room = std::max(stream.size(), zfp_stream_maximum_size(s.zfp, s.field));
    std::vector<uint64_t> buffer(room / 8 + 2, 0);
    std::memcpy(buffer.data(), stream.data(), stream.size());
    s.bits = stream_open(buffer.data(), buffer.size() * 8);
    zfp_stream_set_bit_stream(s.zfp, s.bits);
    zfp_stream_rewind(s.zfp);
    if (zfp_decompress(s.zfp, s.field) == 0) r.fail("zfp could not decompress the stream");
    return out;
  }

  // Upper bounds per value: the block's common exponent and conversion to integers (2),
  // the lifting transform (4), the negabinary reordering (2), then about 2 per bit plane
  // coded, all 32 of a float's planes at most.
  double do_encode_flops(int64_t n, const Layout&, const EncoderState&) const override {
    return (8.0 + 2.0 * 32) * double(n);
  }
  double do_decode_flops(int64_t n, const Layout&, const EncoderState&) const override {
    return (8.0 + 2.0 * 32) * double(n);
  }

  std::optional<int64_t> do_shape_bytes(int64_t n, const Layout&, const EncoderState&) const override {
    if (settings().zfp_mode == ZfpMode::Accuracy) return std::nullopt;
    if (n == 0) return kZfpHeaderBytes;
    const int64_t block_bits = std::max<int64_t>(int64_t(std::floor(4 * settings().rate + 0.5)), 9);
    const int64_t blocks = (n + 3) / 4, word = int64_t(stream_word_bits);
    return kZfpHeaderBytes + (blocks * block_bits + word - 1) / word * word / 8;
  }

 private:
  double parameter() const {
    return settings().zfp_mode == ZfpMode::Accuracy ? settings().error_bound : settings().rate;
  }
};

}  // namespace

std::unique_ptr<Codec> make_zfp(const CodecSettings& s) { return std::make_unique<Zfp>(s); }

}  // namespace fedgrid::compression

// The update codecs (sim/compression/, issue 38), checked by hand on small tensors: each
// format's exact size (header + payload, counted field by field from docs/guide/compression.md),
// decoded values, stochastic rounding's mean over seeds, error feedback's residual after two
// rounds, zfp's error bound and fixed-rate size, bad settings, the state's round trip, and the
// same bytes on any thread count.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <thread>

#include <zfp.h>  // stream_word_bits: the granularity of zfp's stream

#include "sim/compression/codec.hpp"

namespace fedgrid::compression {
namespace {

CodecSettings quantize(int bits, int64_t bucket = 0) {
  return {.method = Method::Quantize, .bits = bits, .bucket = bucket};
}
CodecSettings topk(double fraction) { return {.method = Method::TopK, .fraction = fraction}; }
CodecSettings sign(int64_t bucket = 0) { return {.method = Method::Sign, .bucket = bucket}; }
CodecSettings zfp_accuracy(double bound) {
  return {.method = Method::Zfp, .zfp_mode = ZfpMode::Accuracy, .error_bound = bound};
}
CodecSettings zfp_rate(double rate) { return {.method = Method::Zfp, .zfp_mode = ZfpMode::Rate, .rate = rate}; }
CodecSettings powersgd(int rank) { return {.method = Method::PowerSgd, .rank = rank}; }
CodecSettings dgc(double sparsity, double momentum, bool masking = true, int warmup_rounds = 0, double clip_norm = 0,
                  int64_t nodes = 1) {
  return {.method = Method::Dgc, .sparsity = sparsity, .momentum = momentum, .masking = masking,
          .clip_norm = clip_norm, .warmup_rounds = warmup_rounds, .nodes = nodes};
}

float f32_at(const std::vector<uint8_t>& b, size_t at) {
  uint32_t u = 0;
  for (int i = 0; i < 4; ++i) u |= uint32_t(b[at + size_t(i)]) << (8 * i);
  return std::bit_cast<float>(u);
}
uint32_t u32_at(const std::vector<uint8_t>& b, size_t at) {
  uint32_t u = 0;
  for (int i = 0; i < 4; ++i) u |= uint32_t(b[at + size_t(i)]) << (8 * i);
  return u;
}

std::vector<float> uniform_values(size_t n, float lo, float hi, unsigned seed) {
  std::mt19937 gen(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = lo + (hi - lo) * float(gen() % 1000003) / 1000003.0f;
  return v;
}

// ------------------------------------------------------------------ quantize

TEST(Compression, QuantizeTwoBitsOfZeroHalfOneByHand) {
  auto codec = make_codec(quantize(2));
  EncoderState state;
  const std::vector<float> x = {0.0f, 0.5f, 1.0f};
  bool saw_down = false, saw_up = false;
  for (uint64_t seed = 0; seed < 64; ++seed) {
    const EncodedUpdate e = codec->encode(x, state, seed);
    // Header 10 (method, n, bits, bucket) + one bucket's min and max 8 + 3 codes x 2 bits = 1 byte.
    ASSERT_EQ(e.size(), 10 + 8 + 1);
    EXPECT_EQ(e.bytes[0], 1);
    EXPECT_EQ(u32_at(e.bytes, 1), 3u);
    EXPECT_EQ(e.bytes[5], 2);
    EXPECT_EQ(u32_at(e.bytes, 6), 0u);
    EXPECT_EQ(f32_at(e.bytes, 10), 0.0f);  // the scale: the bucket's min and max
    EXPECT_EQ(f32_at(e.bytes, 14), 1.0f);
    // Levels 0, 1/3, 2/3, 1: 0 and 1 are levels (codes 0 and 3), 0.5 is code 1 or 2.
    const uint8_t codes = e.bytes[18];
    EXPECT_EQ(codes & 3, 0);
    EXPECT_EQ(codes >> 4, 3);
    const int middle = (codes >> 2) & 3;
    ASSERT_TRUE(middle == 1 || middle == 2) << middle;
    const std::vector<float> d = codec->decode(e);
    ASSERT_EQ(d.size(), 3u);
    EXPECT_EQ(d[0], 0.0f);
    EXPECT_EQ(d[2], 1.0f);
    EXPECT_EQ(d[1], middle == 1 ? float(1.0 / 3) : float(2.0 / 3));
    (middle == 1 ? saw_down : saw_up) = true;
  }
  EXPECT_TRUE(saw_down && saw_up) << "0.5 lies halfway: both neighbours must be drawn";
  EXPECT_TRUE(state.residual.empty()) << "quantize keeps no residual";
}

TEST(Compression, QuantizeSizeCountsEveryBucketsScale) {
  // 10 values, 3 bits, buckets of 4: buckets 4+4+2 = 3 -> 10 + 3 x 8 + ceil(30 / 8) = 38.
  auto codec = make_codec(quantize(3, 4));
  EncoderState state;
  const auto x = uniform_values(10, -2, 2, 1);
  const EncodedUpdate e = codec->encode(x, state, 7);
  EXPECT_EQ(e.size(), 10 + 24 + 4);
  EXPECT_EQ(codec->shape_bytes(10), e.size());
  // 1,000,000 values, 8 bits, one scale: 10 + 8 + 1,000,000.
  EXPECT_EQ(make_codec(quantize(8))->shape_bytes(1'000'000), 10 + 8 + 1'000'000);
  // 16 bits over buckets of 512 of 1000 values: 2 buckets, 2000 bytes of codes.
  EXPECT_EQ(make_codec(quantize(16, 512))->shape_bytes(1000), 10 + 16 + 2000);
}

TEST(Compression, QuantizeBucketsHaveTheirOwnScaleAndEndsDecodeExactly) {
  auto codec = make_codec(quantize(1, 2));
  EncoderState state;
  const std::vector<float> x = {0.0f, 1.0f, 10.0f, 20.0f, 5.0f, 5.0f};  // the last bucket constant
  const std::vector<float> d = codec->decode(codec->encode(x, state, 3));
  EXPECT_EQ(d, x);
}

TEST(Compression, QuantizeSixteenBitsIsWithinOneStep) {
  auto codec = make_codec(quantize(16));
  EncoderState state;
  const auto x = uniform_values(5000, -1, 3, 2);
  const std::vector<float> d = codec->decode(codec->encode(x, state, 11));
  const float lo = *std::min_element(x.begin(), x.end()), hi = *std::max_element(x.begin(), x.end());
  const double step = (double(hi) - lo) / 65535;
  for (size_t i = 0; i < x.size(); ++i) ASSERT_LE(std::abs(double(d[i]) - x[i]), step * 1.0001) << i;
}

TEST(Compression, QuantizeStochasticRoundingIsUnbiasedOverSeeds) {
  // 0.3 between levels 0 and 1/3 (2 bits over [0, 1]): 0 w.p. 0.1, 1/3 w.p. 0.9, mean 0.3, sd
  // 0.1; 0.25 with 1 bit over [-1, 1]: -1 or 1, mean 0.25, sd 0.97. Over 20,000 seeds the means'
  // standard errors are 0.0007 and 0.0069; the tolerances are 5 of them.
  auto two = make_codec(quantize(2)), one = make_codec(quantize(1));
  EncoderState state;
  const std::vector<float> a = {0.0f, 0.3f, 1.0f}, b = {-1.0f, 0.25f, 1.0f};
  double sum_a = 0, sum_b = 0;
  const int seeds = 20000;
  for (int s = 0; s < seeds; ++s) {
    sum_a += two->decode(two->encode(a, state, uint64_t(s)))[1];
    sum_b += one->decode(one->encode(b, state, uint64_t(s) + 1'000'000))[1];
  }
  EXPECT_NEAR(sum_a / seeds, 0.3, 0.0035);
  EXPECT_NEAR(sum_b / seeds, 0.25, 0.035);
}

TEST(Compression, QuantizeNonFiniteBucketDecodesAsNaNOthersUntouched) {
  auto codec = make_codec(quantize(4, 2));
  EncoderState state;
  const std::vector<float> x = {1.0f, std::numeric_limits<float>::infinity(), 2.0f, 3.0f};
  const std::vector<float> d = codec->decode(codec->encode(x, state, 0));
  EXPECT_TRUE(std::isnan(d[0]) && std::isnan(d[1]));
  EXPECT_EQ(d[2], 2.0f);
  EXPECT_EQ(d[3], 3.0f);
}

// ------------------------------------------------------------------ topk

TEST(Compression, TopKHalfKeepsMinusThreeAndTwoThenFeedsTheRestBack) {
  auto codec = make_codec(topk(0.5));
  EncoderState state;
  const std::vector<float> x1 = {1.0f, -3.0f, 2.0f, 0.1f};
  const EncodedUpdate e1 = codec->encode(x1, state, 0);
  // Header 10 (method, n, k, index coding) + bitmap 1 byte (gaps 1, 0 would take 2) + 2 x f32.
  ASSERT_EQ(e1.size(), 10 + 1 + 8);
  EXPECT_EQ(u32_at(e1.bytes, 5), 2u);   // k
  EXPECT_EQ(e1.bytes[9], 0);            // bitmap
  EXPECT_EQ(e1.bytes[10], 0b0110);      // entries 1 and 2
  EXPECT_EQ(f32_at(e1.bytes, 11), -3.0f);
  EXPECT_EQ(f32_at(e1.bytes, 15), 2.0f);
  EXPECT_EQ(codec->decode(e1), (std::vector<float>{0.0f, -3.0f, 2.0f, 0.0f}));
  EXPECT_EQ(state.residual, (std::vector<float>{1.0f, 0.0f, 0.0f, 0.1f}));

  // Round 2: v = x2 + residual = [1.5, 1, -1, 0.1 + 0.2]; 1.5 first, then |1| = |-1|: the lower
  // index (1) wins the tie.
  const std::vector<float> x2 = {0.5f, 1.0f, -1.0f, 0.2f};
  const EncodedUpdate e2 = codec->encode(x2, state, 0);
  EXPECT_EQ(codec->decode(e2), (std::vector<float>{1.5f, 1.0f, 0.0f, 0.0f}));
  EXPECT_EQ(state.residual, (std::vector<float>{0.0f, 0.0f, -1.0f, 0.1f + 0.2f}));
}

TEST(Compression, TopKCodesSparseIndicesAsGapVarints) {
  auto codec = make_codec(topk(0.02));  // k = 2 of 100
  EncoderState state;
  std::vector<float> x(100, 0.0f);
  x[3] = 5.0f;
  x[90] = -7.0f;
  const EncodedUpdate e = codec->encode(x, state, 0);
  // Gaps 3 and 90 - 3 - 1 = 86, one byte each, against a 13-byte bitmap.
  ASSERT_EQ(e.size(), 10 + 2 + 8);
  EXPECT_EQ(e.bytes[9], 1);
  EXPECT_EQ(e.bytes[10], 3);
  EXPECT_EQ(e.bytes[11], 86);
  const std::vector<float> d = codec->decode(e);
  EXPECT_EQ(d, x);

  // A gap of 998 takes two varint bytes (998 = 0b111'1100110: 0xE6 0x07).
  auto wide = make_codec(topk(0.002));  // k = 2 of 1000
  std::vector<float> y(1000, 0.0f);
  y[0] = 1.0f;
  y[999] = 2.0f;
  EncoderState s2;
  const EncodedUpdate f = wide->encode(y, s2, 0);
  ASSERT_EQ(f.size(), 10 + 3 + 8);
  EXPECT_EQ(f.bytes[10], 0);
  EXPECT_EQ(f.bytes[11], 0xE6);
  EXPECT_EQ(f.bytes[12], 0x07);
  EXPECT_EQ(wide->decode(f), y);
}

TEST(Compression, TopKCountIsTheFractionsCeilingWithoutRoundingNoise) {
  // 0.07 x 100 is 7.000000000000001 in doubles: k is 7, not 8. Top 7 at 0..6: gaps all 0.
  auto codec = make_codec(topk(0.07));
  EncoderState state;
  std::vector<float> x(100, 0.01f);
  for (int i = 0; i < 7; ++i) x[size_t(i)] = 10.0f + float(i);
  const EncodedUpdate e = codec->encode(x, state, 0);
  EXPECT_EQ(u32_at(e.bytes, 5), 7u);
  EXPECT_EQ(e.size(), 10 + 7 + 7 * 4);
  // 0.015 of 100 is 1.5: 2 kept; fraction 1 keeps all.
  EXPECT_EQ(u32_at(make_codec(topk(0.015))->encode(x, state, 0).bytes, 5), 2u);
  EncoderState fresh;
  const auto all = make_codec(topk(1.0));
  EXPECT_EQ(all->decode(all->encode(x, fresh, 0)), x);
  EXPECT_EQ(fresh.residual, std::vector<float>(100, 0.0f));
}

TEST(Compression, TopKShapeBytesAssumeEvenlySpreadEntries) {
  // k = 10 of 1000, every gap 99 (one varint byte): 10 + 10 + 40.
  auto codec = make_codec(topk(0.01));
  EXPECT_EQ(codec->shape_bytes(1000), 60);
  std::vector<float> x(1000, 0.0f);
  for (int i = 0; i < 10; ++i) x[size_t(i * 100)] = 1.0f + float(i);
  EncoderState state;
  EXPECT_EQ(codec->encode(x, state, 0).size(), 60);
  // Half of 1000: the bitmap (125 bytes) beats gaps.
  EXPECT_EQ(make_codec(topk(0.5))->shape_bytes(1000), 10 + 125 + 500 * 4);
}

TEST(Compression, UndeliveredUpdateGoesBackIntoTheResidual) {
  auto codec = make_codec(topk(0.25));
  EncoderState state{{0.5f, 0.0f, -0.25f, 1.0f}};
  const std::vector<float> x = {4.0f, 1.0f, 2.0f, -1.0f};
  const EncodedUpdate lost = codec->encode(x, state, 0);
  codec->restore_undelivered(state, lost);
  // Nothing was delivered: the residual is everything, x + old residual.
  EXPECT_EQ(state.residual, (std::vector<float>{4.5f, 1.0f, 1.75f, 0.0f}));

  auto q = make_codec(quantize(4));
  EncoderState none;
  q->restore_undelivered(none, q->encode(x, none, 0));
  EXPECT_TRUE(none.residual.empty());
}

// ------------------------------------------------------------------ sign

TEST(Compression, SignIsTheMeanMagnitudeTimesTheSignWithErrorFeedback) {
  auto codec = make_codec(sign());
  EncoderState state;
  const std::vector<float> x1 = {1.0f, -3.0f, 2.0f, 0.1f};
  const EncodedUpdate e1 = codec->encode(x1, state, 0);
  // Header 9 (method, n, bucket) + one scale 4 + 4 sign bits in 1 byte.
  ASSERT_EQ(e1.size(), 9 + 4 + 1);
  const float s1 = float((1.0 + 3.0 + 2.0 + double(0.1f)) / 4);  // 1.525
  EXPECT_EQ(f32_at(e1.bytes, 9), s1);
  EXPECT_EQ(e1.bytes[13], 0b1101);  // +, -, +, +
  EXPECT_EQ(codec->decode(e1), (std::vector<float>{s1, -s1, s1, s1}));
  EXPECT_EQ(state.residual, (std::vector<float>{1.0f - s1, -3.0f + s1, 2.0f - s1, 0.1f - s1}));

  // Round 2 by hand: residual [-0.525, -1.475, 0.475, -1.425]; v = x2 + residual =
  // [-0.025, -0.475, -0.525, -1.225]; scale 2.25 / 4 = 0.5625, every sign negative; the new
  // residual v + 0.5625 = [0.5375, 0.0875, 0.0375, -0.6625].
  const std::vector<float> x2 = {0.5f, 1.0f, -1.0f, 0.2f};
  const std::vector<float> d2 = codec->decode(codec->encode(x2, state, 0));
  for (float d : d2) EXPECT_NEAR(d, -0.5625, 1e-6);
  const std::vector<double> expected = {0.5375, 0.0875, 0.0375, -0.6625};
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(state.residual[i], expected[i], 1e-6) << i;
}

TEST(Compression, SignBucketsAndZeroCountsPositive) {
  auto codec = make_codec(sign(2));
  EncoderState state;
  const std::vector<float> x = {1.0f, 3.0f, -10.0f, -30.0f, 0.0f};
  const EncodedUpdate e = codec->encode(x, state, 0);
  // 3 buckets (2, 2, 1): 9 + 3 x 4 + 1 byte of 5 signs.
  EXPECT_EQ(e.size(), 9 + 12 + 1);
  EXPECT_EQ(codec->shape_bytes(5), e.size());
  EXPECT_EQ(codec->decode(e), (std::vector<float>{2.0f, 2.0f, -20.0f, -20.0f, 0.0f}));
  EXPECT_EQ(e.bytes[21], 0b10011);
}

// ------------------------------------------------------------------ zfp

TEST(Compression, ZfpAccuracyModeRespectsItsErrorBound) {
  const auto x = uniform_values(10'000, -1, 1, 5);
  for (double bound : {1e-1, 1e-3, 1e-5}) {
    auto codec = make_codec(zfp_accuracy(bound));
    EncoderState state;
    const EncodedUpdate e = codec->encode(x, state, 0);
    EXPECT_EQ(e.bytes[0], 4);
    EXPECT_EQ(e.bytes[5], 0);  // accuracy
    double stored;
    std::memcpy(&stored, &e.bytes[6], 8);
    EXPECT_EQ(stored, bound);
    EXPECT_LT(e.size(), int64_t(4 * x.size())) << bound;
    const std::vector<float> d = codec->decode(e);
    ASSERT_EQ(d.size(), x.size());
    double worst = 0;
    for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::abs(double(d[i]) - x[i]));
    EXPECT_LE(worst, bound) << bound;
    EXPECT_FALSE(codec->shape_bytes(x.size()).has_value());
  }
  // A looser bound costs fewer bytes.
  EncoderState s;
  EXPECT_LT(make_codec(zfp_accuracy(1e-1))->encode(x, s, 0).size(), make_codec(zfp_accuracy(1e-5))->encode(x, s, 0).size());
}

TEST(Compression, ZfpFixedRateSizeIsWholeWordsOfItsBlocks) {
  struct Case {
    size_t n;
    double rate;
    int64_t stream_bits;
  };
  // Blocks of 4 values; a block takes round(4 x rate) bits but at least 9; zfp writes whole
  // words of stream_word_bits (8 in Debian's libzfp: whole bytes). Header 14.
  const Case cases[] = {
      {1000, 8, 250 * 32},   // 1000 bytes
      {10, 8, 3 * 32},       // 12 bytes
      {10, 1, 3 * 9},        // rate 1 is 4 bits a block, raised to 9: 27 bits, 4 bytes
      {1001, 4, 251 * 16},   // 502 bytes
      {4096, 2.5, 1024 * 10},  // 1280 bytes
  };
  const int64_t word = int64_t(stream_word_bits);
  for (const Case& c : cases) {
    const int64_t stream_bytes = (c.stream_bits + word - 1) / word * word / 8;
    auto codec = make_codec(zfp_rate(c.rate));
    EncoderState state;
    const EncodedUpdate e = codec->encode(uniform_values(c.n, -5, 5, unsigned(c.n)), state, 0);
    EXPECT_EQ(e.size(), 14 + stream_bytes) << c.n << " values at rate " << c.rate;
    EXPECT_EQ(codec->shape_bytes(int64_t(c.n)), 14 + stream_bytes);
    EXPECT_EQ(codec->decode(e).size(), c.n);
  }
  if (word == 8) {  // Debian's build, by hand
    EXPECT_EQ(make_codec(zfp_rate(1))->shape_bytes(10), 14 + 4);
  }
  // Rate 24 is close: within 1e-4 of values in [-1, 1].
  auto fine = make_codec(zfp_rate(24));
  EncoderState state;
  const auto x = uniform_values(1000, -1, 1, 9);
  const std::vector<float> d = fine->decode(fine->encode(x, state, 0));
  for (size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(d[i], x[i], 1e-4) << i;
}

// ------------------------------------------------------------------ every codec

std::vector<CodecSettings> every_codec() {
  return {quantize(4, 64), topk(0.1), sign(32), zfp_accuracy(1e-3), zfp_rate(6), powersgd(2), dgc(0.9, 0.9, true, 4)};
}

TEST(Compression, SameInputAndSeedGiveTheSameBytesOnAnyThread) {
  const auto x = uniform_values(4099, -3, 3, 13);
  for (const CodecSettings& s : every_codec()) {
    auto codec = make_codec(s);
    EncoderState serial_state{std::vector<float>(x.size(), 0.125f)};
    const EncodedUpdate serial = codec->encode(x, serial_state, 42);
    std::vector<EncodedUpdate> got(4);
    std::vector<EncoderState> states(4, EncoderState{std::vector<float>(x.size(), 0.125f)});
    std::vector<std::thread> threads;
    for (size_t t = 0; t < 4; ++t)
      threads.emplace_back([&, t] { got[t] = codec->encode(x, states[t], 42); });
    for (auto& t : threads) t.join();
    for (size_t t = 0; t < 4; ++t) {
      EXPECT_EQ(got[t].bytes, serial.bytes) << codec->describe();
      EXPECT_EQ(states[t], serial_state) << codec->describe();
    }
  }
  // The seed matters to quantize only.
  auto q = make_codec(quantize(4, 64));
  EncoderState s;
  EXPECT_NE(q->encode(x, s, 1).bytes, q->encode(x, s, 2).bytes);
}

TEST(Compression, EmptyUpdatesEncodeToTheirHeader) {
  const int64_t headers[] = {10, 10, 9, 14, 14, 13, 10};
  size_t i = 0;
  for (const CodecSettings& s : every_codec()) {
    auto codec = make_codec(s);
    EncoderState state;
    const EncodedUpdate e = codec->encode({}, state, 0);
    EXPECT_EQ(e.size(), headers[i++]) << codec->describe();
    EXPECT_TRUE(codec->decode(e).empty());
  }
}

TEST(Compression, DamagedOrForeignBytesAreRefused) {
  const auto x = uniform_values(100, -1, 1, 3);
  auto q = make_codec(quantize(8)), t = make_codec(topk(0.1));
  EncoderState state;
  EncodedUpdate e = q->encode(x, state, 0);
  EXPECT_THROW(t->decode(e), std::invalid_argument);  // a quantize update read as topk
  e.bytes.pop_back();
  EXPECT_THROW(q->decode(e), std::invalid_argument);
  e.bytes.push_back(0);
  e.bytes.push_back(0);
  EXPECT_THROW(q->decode(e), std::invalid_argument);
  // A header announcing more values than its bytes hold is refused before anything is sized
  // by it (4,000,000,000 values would be 16 GB). topk's half is coded as a bitmap; gaps could
  // legitimately stand for any n.
  for (const CodecSettings& s : {quantize(4, 64), topk(0.5), sign(32), zfp_accuracy(1e-3), zfp_rate(6), powersgd(2),
                                 dgc(0.5, 0.9)}) {
    auto codec = make_codec(s);
    EncodedUpdate big = codec->encode(x, state, 0);
    const uint32_t announced = 4'000'000'000u;
    for (int b = 0; b < 4; ++b) big.bytes[size_t(1 + b)] = uint8_t(announced >> (8 * b));
    big.values = announced;
    EXPECT_THROW(codec->decode(big), std::invalid_argument) << codec->describe();
  }
  // zfp's stream cut short still decodes to n values (zfp reads zeros past the cut, in a buffer
  // sized for the most its mode could take); a damaged rate is refused.
  auto z = make_codec(zfp_accuracy(1e-6));
  EncodedUpdate cut = z->encode(x, state, 0);
  cut.bytes.resize(cut.bytes.size() / 2);
  EXPECT_EQ(z->decode(cut).size(), x.size());
  EncodedUpdate nan_rate = make_codec(zfp_rate(8))->encode(x, state, 0);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::memcpy(&nan_rate.bytes[6], &nan, 8);
  EXPECT_THROW(z->decode(nan_rate), std::invalid_argument);
  // A residual of another shape is the caller's mistake, said plainly.
  EncoderState wrong{std::vector<float>(7, 0.0f)};
  try {
    t->encode(x, wrong, 0);
    FAIL() << "a 7-value residual for 100 values was accepted";
  } catch (const std::invalid_argument& err) {
    EXPECT_NE(std::string(err.what()).find("holds 7 values, the update 100"), std::string::npos) << err.what();
  }
}

TEST(Compression, BadSettingsAreRefusedWithTheirMessage) {
  struct Case {
    CodecSettings settings;
    std::string setting, message;
  };
  const Case cases[] = {
      {quantize(0), "bits", "must be from 1 to 16 bits per value, got 0"},
      {quantize(17), "bits", "must be from 1 to 16 bits per value, got 17"},
      {quantize(8, -1), "bucket", "must be 0 (one scale for the whole state) or a count of values up to 4294967295, got -1"},
      {sign(-4), "bucket", "must be 0 (one scale for the whole state) or a count of values up to 4294967295, got -4"},
      {topk(1.5), "fraction", "must be in (0, 1]: the share of entries sent, got 1.5"},
      {topk(0), "fraction", "must be in (0, 1]: the share of entries sent, got 0"},
      {topk(-0.1), "fraction", "must be in (0, 1]: the share of entries sent, got -0.1"},
      {zfp_accuracy(-0.1), "error_bound", "must be positive: the largest absolute error of a decoded value, got -0.1"},
      {zfp_accuracy(0), "error_bound", "must be positive: the largest absolute error of a decoded value, got 0"},
      {zfp_rate(0), "rate", "must be in (0, 32] bits per value (a float has 32), got 0"},
      {zfp_rate(40), "rate", "must be in (0, 32] bits per value (a float has 32), got 40"},
      {powersgd(0), "rank", "must be from 1 to 65535: the rank of each matrix's approximation, got 0"},
      {powersgd(70000), "rank", "must be from 1 to 65535: the rank of each matrix's approximation, got 70000"},
      {dgc(1, 0.9), "sparsity", "must be in [0, 1): the share of entries left out once warmed up, got 1"},
      {dgc(-0.5, 0.9), "sparsity", "must be in [0, 1): the share of entries left out once warmed up, got -0.5"},
      {dgc(0.999, 1), "momentum", "must be in [0, 1): the momentum of the accumulated velocity, got 1"},
      {dgc(0.999, 0.9, true, 4, -1), "clip_norm", "must be 0 (no clipping) or a positive L2 norm, got -1"},
      {dgc(0.999, 0.9, true, -1), "warmup_rounds", "must be 0 (no warm-up) or a count of rounds, got -1"},
      {dgc(0.999, 0.9, true, 4, 0, 0), "nodes", "must be at least 1: the senders one receiver sums, got 0"},
  };
  for (const Case& c : cases) {
    const auto problems = settings_problems(c.settings);
    ASSERT_EQ(problems.size(), 1u) << c.setting;
    EXPECT_EQ(problems[0].setting, c.setting);
    EXPECT_EQ(problems[0].message, c.message);
    try {
      make_codec(c.settings);
      FAIL() << c.setting << ": " << c.message << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(c.setting + ": " + c.message), std::string::npos) << e.what();
    }
  }
  // A method reads only its own settings: topk ignores bits.
  CodecSettings t = topk(0.5);
  t.bits = 0;
  EXPECT_TRUE(settings_problems(t).empty());
  for (const CodecSettings& s : every_codec()) EXPECT_TRUE(settings_problems(s).empty());
}

TEST(Compression, DescribeNamesTheMethodAndItsSettings) {
  EXPECT_EQ(make_codec(quantize(8))->describe(), "quantize(bits=8, bucket=0)");
  EXPECT_EQ(make_codec(topk(0.01))->describe(), "topk(fraction=0.01)");
  EXPECT_EQ(make_codec(sign(512))->describe(), "sign(bucket=512)");
  EXPECT_EQ(make_codec(zfp_accuracy(1e-3))->describe(), "zfp(error_bound=0.001)");
  EXPECT_EQ(make_codec(zfp_rate(8))->describe(), "zfp(rate=8)");
  EXPECT_EQ(make_codec(powersgd(2))->describe(), "powersgd(rank=2)");
  EXPECT_EQ(make_codec(CodecSettings{.method = Method::Dgc})->describe(),
            "dgc(sparsity=0.999, momentum=0.9, masking=true, clip_norm=0, warmup_rounds=4)");
  EXPECT_EQ(mode_named<Method>("powersgd"), Method::PowerSgd);
  EXPECT_EQ(mode_named<Method>("dgc"), Method::Dgc);
  EXPECT_EQ(mode_named<Method>("topk"), Method::TopK);
  EXPECT_EQ(mode_names<ZfpMode>(), (std::vector<std::string>{"accuracy", "rate"}));
}

TEST(Compression, WorkEstimatesGrowWithTheValues) {
  // The counts documented in docs/guide/compression.md, per value.
  EXPECT_EQ(make_codec(quantize(8))->encode_flops(1000), 16000);
  EXPECT_EQ(make_codec(quantize(8))->decode_flops(1000), 5000);
  EXPECT_EQ(make_codec(sign())->encode_flops(1000), 6000);
  EXPECT_EQ(make_codec(sign())->decode_flops(1000), 2000);
  EXPECT_EQ(make_codec(zfp_rate(8))->encode_flops(1000), 72000);
  // topk: 7 n + k log2 k + k; decode n + 2k (k = 10 of 1000).
  EXPECT_DOUBLE_EQ(make_codec(topk(0.01))->encode_flops(1000), 7000 + 10 * std::log2(10.0) + 10);
  EXPECT_EQ(make_codec(topk(0.01))->decode_flops(1000), 1020);
}

// ------------------------------------------------------------------ error-feedback state

TEST(Compression, ErrorFeedbackStateRoundTripsThroughBytes) {
  EncoderState state{{1.5f, -0.0f, 3e-38f, std::numeric_limits<float>::quiet_NaN(), -7.25f}};
  const std::vector<uint8_t> bytes = save_state(state);
  EXPECT_EQ(bytes.size(), 4 + 1 + 8 + 5 * 4u);  // "FGEF", version, count, values
  const EncoderState back = load_state(bytes);
  ASSERT_EQ(back.residual.size(), state.residual.size());
  for (size_t i = 0; i < state.residual.size(); ++i)
    EXPECT_EQ(std::bit_cast<uint32_t>(back.residual[i]), std::bit_cast<uint32_t>(state.residual[i])) << i;
  EXPECT_TRUE(load_state(save_state(EncoderState{})).residual.empty());

  std::vector<uint8_t> cut(bytes.begin(), bytes.end() - 1), longer = bytes, foreign = bytes;
  longer.push_back(0);
  foreign[0] = 'X';
  EXPECT_THROW(load_state(cut), std::invalid_argument);
  EXPECT_THROW(load_state(longer), std::invalid_argument);
  EXPECT_THROW(load_state(foreign), std::invalid_argument);
}

TEST(Compression, ResumingFromSavedStateGivesTheSameBytes) {
  // Three rounds straight, against two rounds, a save and load, then the third.
  const auto r1 = uniform_values(500, -1, 1, 21), r2 = uniform_values(500, -1, 1, 22),
             r3 = uniform_values(500, -1, 1, 23);
  // powersgd's warm-started Q and dgc's momentum and warm-up count are state too; 500 values as
  // a 20 x 25 matrix (the others read no layout).
  const Layout matrix{{{20, 25}}};
  for (const CodecSettings& s : {topk(0.05), sign(100), powersgd(3), dgc(0.95, 0.9, true, 4)}) {
    auto codec = make_codec(s);
    EncoderState straight, resumed;
    for (const auto* r : {&r1, &r2}) {
      codec->encode(*r, straight, 0, matrix);
      codec->encode(*r, resumed, 0, matrix);
    }
    resumed = load_state(save_state(resumed));
    EXPECT_EQ(codec->encode(r3, straight, 0, matrix).bytes, codec->encode(r3, resumed, 0, matrix).bytes) << codec->describe();
    EXPECT_EQ(straight, resumed);
  }
}

TEST(Compression, StateOfPowersgdAndDgcRoundTripsAsVersionTwo) {
  EncoderState state{{1.5f, -2.0f}, {0.25f}, {3.0f, -0.5f, 7.0f}, 5};
  const std::vector<uint8_t> bytes = save_state(state);
  // "FGEF", version 2, then three counted float vectors and the encodings (8 bytes).
  EXPECT_EQ(bytes[4], 2);
  EXPECT_EQ(bytes.size(), 4 + 1 + (8 + 2 * 4) + (8 + 1 * 4) + (8 + 3 * 4) + 8u);
  EXPECT_EQ(load_state(bytes), state);
  // A state with none of those is written as before they existed (version 1).
  EXPECT_EQ(save_state(EncoderState{{1.0f}})[4], 1);
  std::vector<uint8_t> cut(bytes.begin(), bytes.end() - 1);
  EXPECT_THROW(load_state(cut), std::invalid_argument);
}

// ------------------------------------------------------------------ powersgd

// M = [[1, 2], [3, 4], [5, 6]] (row-major), rank 1, the pair's Q warm-started at [1, 0]:
//   P = M Q = [1, 3, 5]; P^ = P / sqrt(35); Q = M^T P^ = [35, 44] / sqrt(35);
//   decoded P^ Q^T = [[1, 44/35], [3, 132/35], [5, 220/35]];
//   residual M - decoded = [[0, 26/35], [0, 8/35], [0, -10/35]], rank 1 itself, so
// the second encoding (a zero update plus that residual) sends it whole: P = M Q is
// [26, 8, -10] x 44 / 35^1.5, P^ = [26, 8, -10] / sqrt(840), Q = [0, sqrt(840) / 35], and the
// decoded matrix is the residual, which drops to 0.
TEST(Compression, PowersgdRankOneOfAThreeByTwoMatrixByHand) {
  auto codec = make_codec(powersgd(1));
  const Layout layout{{{3, 2}}};
  EncoderState state;
  state.query = {1.0f, 0.0f};  // Q, 2 x 1
  const std::vector<float> m = {1, 2, 3, 4, 5, 6};
  const EncodedUpdate e1 = codec->encode(m, state, 0, layout);
  // Header 13 (method, n, rank, tensors) + the shape 8 (rows, columns) + P^ (3) and Q (2) as f32.
  ASSERT_EQ(e1.size(), 13 + 8 + 4 * (3 + 2));
  EXPECT_EQ(codec->shape_bytes(6, layout), e1.size());
  EXPECT_EQ(e1.bytes[0], 5);
  EXPECT_EQ(u32_at(e1.bytes, 1), 6u);
  EXPECT_EQ(u32_at(e1.bytes, 5), 1u);   // rank
  EXPECT_EQ(u32_at(e1.bytes, 9), 1u);   // tensors
  EXPECT_EQ(u32_at(e1.bytes, 13), 3u);  // rows
  EXPECT_EQ(u32_at(e1.bytes, 17), 2u);  // columns
  const double root35 = std::sqrt(35.0);
  const double p_hat[] = {1 / root35, 3 / root35, 5 / root35}, q[] = {35 / root35, 44 / root35};
  for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(f32_at(e1.bytes, 21 + 4 * i), p_hat[i], 1e-7) << "P^ " << i;
  for (size_t j = 0; j < 2; ++j) EXPECT_NEAR(f32_at(e1.bytes, 33 + 4 * j), q[j], 1e-6) << "Q " << j;
  const std::vector<double> decoded = {1, 44.0 / 35, 3, 132.0 / 35, 5, 220.0 / 35};
  const std::vector<double> residual = {0, 26.0 / 35, 0, 8.0 / 35, 0, -10.0 / 35};
  const std::vector<float> d1 = codec->decode(e1);
  ASSERT_EQ(d1.size(), 6u);
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_NEAR(d1[i], decoded[i], 2e-6) << i;
    EXPECT_NEAR(state.residual[i], residual[i], 2e-6) << i;
    EXPECT_EQ(state.residual[i], m[i] - d1[i]) << "the residual is what the receiver did not get, " << i;
  }
  ASSERT_EQ(state.query.size(), 2u);  // warm start: the next Q is this one
  for (size_t j = 0; j < 2; ++j) EXPECT_EQ(state.query[j], f32_at(e1.bytes, 33 + 4 * j));

  // The residual carries round 1's float rounding (about 1e-7 an entry, its first column
  // included), which the normalisation of [26, 8, -10] / 35 scales up a little: 1e-5 here.
  const EncodedUpdate e2 = codec->encode(std::vector<float>(6, 0.0f), state, 0, layout);
  const double root840 = std::sqrt(840.0);
  EXPECT_NEAR(f32_at(e2.bytes, 21), 26 / root840, 1e-5);
  EXPECT_NEAR(f32_at(e2.bytes, 25), 8 / root840, 1e-5);
  EXPECT_NEAR(f32_at(e2.bytes, 29), -10 / root840, 1e-5);
  EXPECT_NEAR(f32_at(e2.bytes, 33), 0, 1e-5);
  EXPECT_NEAR(f32_at(e2.bytes, 37), root840 / 35, 1e-5);
  const std::vector<float> d2 = codec->decode(e2);
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_NEAR(d2[i], residual[i], 2e-6) << i;
    EXPECT_NEAR(state.residual[i], 0.0, 2e-6) << i;
  }
}

// Each tensor of two or more dimensions is a matrix (rows: the first, columns: the rest) sent
// as rank min(r, rows, columns) factors; the others cross as they are. The size, counted here
// from the format: 13 + 8 a tensor + 4 a float.
TEST(Compression, PowersgdSendsMatricesAsFactorsAndVectorsAsTheyAre) {
  // A conv (8 x 3 x 5 x 5: 8 x 75), its bias, a linear layer (10 x 200), one of a single row
  // (1 x 10: rank 1), a batch norm's vector and its scalar counter.
  const Layout layout{{{8, 3, 5, 5}}, {{8}}, {{10, 200}}, {{1, 10}}, {{6}}, {{}}};
  const int64_t n = 600 + 8 + 2000 + 10 + 6 + 1;
  const int64_t floats = 2 * (8 + 75) + 8 + 2 * (10 + 200) + 1 * (1 + 10) + 6 + 1;
  auto codec = make_codec(powersgd(2));
  const auto x = uniform_values(size_t(n), -1, 1, 31);
  EncoderState state;
  const EncodedUpdate e = codec->encode(x, state, 99, layout);
  EXPECT_EQ(e.size(), 13 + 8 * 6 + 4 * floats);
  EXPECT_EQ(codec->shape_bytes(n, layout), e.size());
  EXPECT_EQ(state.query.size(), size_t(75 * 2 + 200 * 2 + 10 * 1));  // every matrix's Q
  const std::vector<float> d = codec->decode(e);
  ASSERT_EQ(d.size(), size_t(n));
  // The vectors and the counter arrive exactly and leave nothing behind.
  for (int64_t i : {600, 607, 2618, 2623, 2624}) {
    EXPECT_EQ(d[size_t(i)], x[size_t(i)]) << i;
    EXPECT_EQ(state.residual[size_t(i)], 0.0f) << i;
  }
  // The single-row matrix at rank 1 is exact up to float rounding: P^ = [+-1], Q = the row.
  for (int64_t i = 2618 - 10; i < 2618; ++i) EXPECT_NEAR(d[size_t(i)], x[size_t(i)], 1e-6) << i;
  // Without a layout the update is one vector: nothing is compressed.
  EncoderState flat;
  EXPECT_EQ(codec->encode(x, flat, 99).size(), 13 + 8 + 4 * n);
  // A layout that does not add up to the values is refused.
  EXPECT_THROW(codec->encode(x, flat, 99, Layout{{{3, 2}}}), std::invalid_argument);
}

TEST(Compression, PowersgdAtFullRankIsExactAndItsFirstQIsDrawnFromTheSeed) {
  // Rank 2 of a 3 x 2 matrix spans its columns: decoded is M to float rounding.
  auto full = make_codec(powersgd(2));
  const std::vector<float> m = {1, -2, 0.5f, 4, 3, 1};
  EncoderState s1;
  const std::vector<float> d = full->decode(full->encode(m, s1, 5, Layout{{{3, 2}}}));
  for (size_t i = 0; i < m.size(); ++i) EXPECT_NEAR(d[i], m[i], 1e-5) << i;
  // The first Q is the seed's standard normal draws: the same seed, the same bytes on any
  // thread; another seed, another Q. Once held, Q is warm and the seed plays no part.
  auto codec = make_codec(powersgd(2));
  const Layout layout{{{40, 30}}, {{40}}};
  const auto x = uniform_values(1240, -1, 1, 17);
  EncoderState a, b, c;
  const EncodedUpdate ea = codec->encode(x, a, 7, layout);
  EXPECT_EQ(codec->encode(x, b, 7, layout).bytes, ea.bytes);
  EXPECT_NE(codec->encode(x, c, 8, layout).bytes, ea.bytes);
  EXPECT_EQ(a, b);
  std::vector<EncodedUpdate> got(4);
  std::vector<EncoderState> states(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < 4; ++t) threads.emplace_back([&, t] { got[t] = codec->encode(x, states[t], 7, layout); });
  for (auto& t : threads) t.join();
  for (size_t t = 0; t < 4; ++t) EXPECT_EQ(got[t].bytes, ea.bytes) << "thread " << t;
  EXPECT_EQ(codec->encode(x, a, 1, layout).bytes, codec->encode(x, b, 2, layout).bytes);
  // A zero matrix sends zeros and keeps its Q, so the power iteration restarts when it moves.
  EncoderState z;
  z.query = {1.0f, 2.0f, 3.0f, 4.0f};  // 2 x 2
  const std::vector<float> zero(4, 0.0f);
  EXPECT_EQ(codec->decode(codec->encode(zero, z, 0, Layout{{{2, 2}}})), zero);
  EXPECT_EQ(z.query, (std::vector<float>{1.0f, 2.0f, 3.0f, 4.0f}));
}

TEST(Compression, PowersgdUndeliveredUpdateGoesBackIntoTheResidual) {
  auto codec = make_codec(powersgd(1));
  EncoderState state;
  const std::vector<float> x = {1, 2, 3, 4, 5, 6, 0.5f};
  const EncodedUpdate lost = codec->encode(x, state, 3, Layout{{{3, 2}}, {{1}}});
  codec->restore_undelivered(state, lost);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(state.residual[i], x[i], 1e-6) << i;
}

// ------------------------------------------------------------------ dgc

// Momentum 0.5, keep 2 of 4 (sparsity 0.5), no warm-up, by hand:
//   round 1, g = [1, -3, 2, 0.5]: u = g, v = g; sends -3 and 2; v = [1, 0, 0, 0.5] and, masked,
//     u = [1, 0, 0, 0.5];
//   round 2, g = [0.5, 1, -1, 0.25]: u = 0.5 u + g = [1, 1, -1, 0.5]; v = v + u = [2, 1, -1, 1];
//     sends 2 and 1 (|1| three times: the lowest index, 1); v = [0, 0, -1, 1], u = [0, 0, -1, 0.5].
// Without masking u keeps [1, -3, 2, 0.5] after round 1: round 2 has u = [1, -0.5, 0, 0.5],
// v = [2, -0.5, 0, 1], and sends 2 and 1 at indices 0 and 3. (topk, with error feedback alone,
// sends 1.5 and 1 in round 2: TopKHalfKeepsMinusThreeAndTwoThenFeedsTheRestBack.)
TEST(Compression, DgcTwoRoundsByHandWithMomentumCorrectionAndMasking) {
  const std::vector<float> g1 = {1, -3, 2, 0.5f}, g2 = {0.5f, 1, -1, 0.25f};
  auto masked = make_codec(dgc(0.5, 0.5, true));
  EncoderState state;
  const EncodedUpdate e1 = masked->encode(g1, state, 0);
  ASSERT_EQ(e1.size(), 10 + 1 + 8);  // topk's format: header, bitmap byte, two values
  EXPECT_EQ(e1.bytes[0], 6);
  EXPECT_EQ(e1.bytes[10], 0b0110);
  EXPECT_EQ(masked->decode(e1), (std::vector<float>{0, -3, 2, 0}));
  EXPECT_EQ(state.residual, (std::vector<float>{1, 0, 0, 0.5f}));
  EXPECT_EQ(state.momentum, (std::vector<float>{1, 0, 0, 0.5f}));
  EXPECT_EQ(state.encodings, 1);
  EXPECT_EQ(masked->decode(masked->encode(g2, state, 0)), (std::vector<float>{2, 1, 0, 0}));
  EXPECT_EQ(state.residual, (std::vector<float>{0, 0, -1, 1}));
  EXPECT_EQ(state.momentum, (std::vector<float>{0, 0, -1, 0.5f}));

  auto unmasked = make_codec(dgc(0.5, 0.5, false));
  EncoderState plain;
  EXPECT_EQ(unmasked->decode(unmasked->encode(g1, plain, 0)), (std::vector<float>{0, -3, 2, 0}));
  EXPECT_EQ(plain.momentum, g1);
  EXPECT_EQ(unmasked->decode(unmasked->encode(g2, plain, 0)), (std::vector<float>{2, 0, 0, 1}));
  EXPECT_EQ(plain.residual, (std::vector<float>{0, -0.5f, 0, 0}));
  EXPECT_EQ(plain.momentum, (std::vector<float>{1, -0.5f, 0, 0.5f}));
}

TEST(Compression, DgcWithoutMomentumClippingOrWarmUpIsTopk) {
  auto d = make_codec(dgc(0.9, 0)), t = make_codec(topk(0.1));
  EncoderState ds, ts;
  for (unsigned round = 0; round < 3; ++round) {
    const auto x = uniform_values(997, -1, 1, 40 + round);
    EncodedUpdate de = d->encode(x, ds, 0), te = t->encode(x, ts, 0);
    EXPECT_EQ(de.bytes[0], 6);
    de.bytes[0] = te.bytes[0];
    EXPECT_EQ(de.bytes, te.bytes) << "round " << round;
    EXPECT_EQ(ds.residual, ts.residual) << "round " << round;
  }
}

// The paper's warm-up: 75%, 93.75%, 98.4375%, 99.6% over the first four encodings, then
// 99.9%: of 1024 values 256, 64, 16, 4, then ceil(1.024) = 2. A final sparsity below the
// warm-up's is never exceeded (sparsity 0.5: 512 every time). A timing-only transfer advances
// the count as an encoding does.
TEST(Compression, DgcSparsityWarmsUpExponentially) {
  auto codec = make_codec(CodecSettings{.method = Method::Dgc});  // the paper's defaults
  const auto x = uniform_values(1024, -1, 1, 50);
  EncoderState state, timing;
  for (uint32_t k : {256u, 64u, 16u, 4u, 2u, 2u}) {
    const int64_t expected = *codec->shape_bytes(1024, {}, timing);
    const EncodedUpdate e = codec->encode(x, state, 0);
    EXPECT_EQ(u32_at(e.bytes, 5), k) << "encoding " << state.encodings;
    // Kept entries evenly spread: the bitmap (128 bytes) or the gaps, (1024 - k) / k each (one
    // varint byte below 128, two from 128), whichever is smaller.
    const int64_t gap_bytes = (1024 - int64_t(k)) / int64_t(k) < 128 ? 1 : 2;
    EXPECT_EQ(expected, 10 + std::min<int64_t>(128, gap_bytes * k) + 4 * k);
    codec->count_encoding(timing);
  }
  EXPECT_EQ(timing.encodings, 6);
  EXPECT_TRUE(timing.residual.empty());
  auto loose = make_codec(dgc(0.5, 0.9, true, 4));
  EncoderState s;
  for (int round = 0; round < 5; ++round) EXPECT_EQ(u32_at(loose->encode(x, s, 0).bytes, 5), 512u) << round;
}

// Local clipping before the accumulation, at clip_norm / sqrt(N): clip_norm 2 over N = 4 senders
// is 1, so [3, 4] (norm 5) is scaled to [0.6, 0.8], and [0.3, 0.4] is left as it is.
TEST(Compression, DgcClipsAtTheSendersShareOfTheThreshold) {
  auto codec = make_codec(dgc(0, 0, true, 0, 2.0, 4));
  EncoderState state;
  const std::vector<float> d = codec->decode(codec->encode(std::vector<float>{3, 4}, state, 0));
  EXPECT_FLOAT_EQ(d[0], 0.6f);
  EXPECT_FLOAT_EQ(d[1], 0.8f);
  EXPECT_EQ(codec->decode(codec->encode(std::vector<float>{0.3f, 0.4f}, state, 0)), (std::vector<float>{0.3f, 0.4f}));
}

TEST(Compression, DgcUndeliveredUpdateGoesBackIntoTheAccumulation) {
  auto codec = make_codec(dgc(0.5, 0.5));
  EncoderState state;
  const std::vector<float> g = {1, -3, 2, 0.5f};
  codec->restore_undelivered(state, codec->encode(g, state, 0));
  EXPECT_EQ(state.residual, g);  // v holds everything not delivered
  EXPECT_EQ(state.momentum, (std::vector<float>{1, 0, 0, 0.5f}));  // masking has acted
}

TEST(Compression, PowersgdAndDgcWorkEstimates) {
  // powersgd, a 3 x 2 matrix at rank 1 and a vector of 2: per value 2 (the residual in and out);
  // the matrix 6 n m r + r (3n + 1) + 2 n r (r - 1) = 36 + 10 + 0; decoding 2 n m r + 2 = 14.
  const Layout layout{{{3, 2}}, {{2}}};
  EXPECT_EQ(make_codec(powersgd(1))->encode_flops(8, layout), 2 * 8 + 36 + 10);
  EXPECT_EQ(make_codec(powersgd(1))->decode_flops(8, layout), 12 + 2);
  // Rank 2 of a 4 x 3: 6 x 4 x 3 x 2 + 2 (3 x 4 + 1) + 2 x 4 x 2 x 1 = 144 + 26 + 16, plus 2 x 12.
  EXPECT_EQ(make_codec(powersgd(2))->encode_flops(12, Layout{{{4, 3}}}), 24 + 144 + 26 + 16);
  // dgc, k = 10 of 1000 (sparsity 0.99, no warm-up): 10 n + k log2 k + k + k (masking), 3 n
  // more with clipping; decoding n + 2k, as topk's.
  EXPECT_DOUBLE_EQ(make_codec(dgc(0.99, 0.9))->encode_flops(1000), 10000 + 10 * std::log2(10.0) + 10 + 10);
  EXPECT_DOUBLE_EQ(make_codec(dgc(0.99, 0.9, false, 0, 1.0))->encode_flops(1000), 13000 + 10 * std::log2(10.0) + 10);
  EXPECT_EQ(make_codec(dgc(0.99, 0.9))->decode_flops(1000), 1020);
  // During the warm-up the work follows the entries kept: 250 of 1000 in the first encoding.
  EXPECT_EQ(make_codec(dgc(0.99, 0.9, true, 4))->decode_flops(1000), 1500);
}

}  // namespace
}  // namespace fedgrid::compression

#pragma once
// The codecs' byte formats (docs/guide/compression.md) are written and read here: integers and
// floats little-endian whatever the machine, LEB128 varints, and codes of 1 to 16 bits packed
// from the lowest bit of each byte up. A read past the end is a damaged update
// (std::invalid_argument), never a read out of bounds.
#include <bit>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace fedgrid::compression {

class ByteWriter {
 public:
  explicit ByteWriter(std::vector<uint8_t>& out) : out_(out) {}
  void u8(uint8_t v) { out_.push_back(v); }
  void u32(uint32_t v) { little(v, 4); }
  void u64(uint64_t v) { little(v, 8); }
  void f32(float v) { u32(std::bit_cast<uint32_t>(v)); }
  void f64(double v) { u64(std::bit_cast<uint64_t>(v)); }
  void varint(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(uint8_t(v | 0x80));
      v >>= 7;
    }
    out_.push_back(uint8_t(v));
  }
  void bytes(std::span<const uint8_t> b) { out_.insert(out_.end(), b.begin(), b.end()); }

 private:
  void little(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out_.push_back(uint8_t(v >> (8 * i)));
  }
  std::vector<uint8_t>& out_;
};

class ByteReader {
 public:
  ByteReader(std::span<const uint8_t> in, std::string what) : in_(in), what_(std::move(what)) {}
  uint8_t u8() { return uint8_t(little(1)); }
  uint32_t u32() { return uint32_t(little(4)); }
  uint64_t u64() { return little(8); }
  float f32() { return std::bit_cast<float>(u32()); }
  double f64() { return std::bit_cast<double>(u64()); }
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const uint8_t b = u8();
      v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    fail("a varint longer than 64 bits");
  }
  std::span<const uint8_t> bytes(size_t n) {
    need(n);
    auto s = in_.subspan(at_, n);
    at_ += n;
    return s;
  }
  size_t left() const { return in_.size() - at_; }
  // The rest must be exactly `n` bytes: checked before a header's counts size any allocation.
  void expect_left(uint64_t n, const std::string& of) const {
    if (n != left()) fail(of + " take " + std::to_string(n) + " bytes, " + std::to_string(left()) + " are left");
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw std::invalid_argument(what_ + ": damaged at byte " + std::to_string(at_) + ": " + why);
  }

 private:
  void need(size_t n) const {
    if (n > left()) fail("needs " + std::to_string(n) + " more bytes, " + std::to_string(left()) + " left");
  }
  uint64_t little(int n) {
    need(size_t(n));
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= uint64_t(in_[at_ + size_t(i)]) << (8 * i);
    at_ += size_t(n);
    return v;
  }
  std::span<const uint8_t> in_;
  std::string what_;
  size_t at_ = 0;
};

// Codes of `bits` bits (1..16) appended into whole bytes, the first code in the lowest bits.
class BitPacker {
 public:
  BitPacker(std::vector<uint8_t>& out, int bits) : out_(out), bits_(bits) {}
  ~BitPacker() { flush(); }
  void put(uint32_t code) {
    acc_ |= uint64_t(code) << held_;
    held_ += bits_;
    while (held_ >= 8) {
      out_.push_back(uint8_t(acc_));
      acc_ >>= 8;
      held_ -= 8;
    }
  }
  void flush() {
    if (held_ > 0) out_.push_back(uint8_t(acc_));
    acc_ = 0;
    held_ = 0;
  }

 private:
  std::vector<uint8_t>& out_;
  int bits_;
  uint64_t acc_ = 0;
  int held_ = 0;
};

class BitUnpacker {
 public:
  BitUnpacker(std::span<const uint8_t> in, int bits) : in_(in), bits_(bits) {}
  uint32_t get() {
    while (held_ < bits_) {
      acc_ |= uint64_t(in_[at_++]) << held_;  // the caller sized `in` for every code it reads
      held_ += 8;
    }
    const uint32_t code = uint32_t(acc_ & ((uint64_t(1) << bits_) - 1));
    acc_ >>= bits_;
    held_ -= bits_;
    return code;
  }

 private:
  std::span<const uint8_t> in_;
  int bits_;
  uint64_t acc_ = 0;
  int held_ = 0;
  size_t at_ = 0;
};

// Bytes that hold `count` codes of `bits` bits.
inline int64_t packed_bytes(int64_t count, int bits) { return (count * bits + 7) / 8; }

}  // namespace fedgrid::compression

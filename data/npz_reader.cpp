// MedMNIST's .npz files: a zip archive (numpy.savez_compressed) of .npy arrays named
// {train,val,test}_{images,labels}. Images are uint8, (N, H, W) for grey or (N, H, W, C) for
// colour; labels are (N, 1) or (N,) integers.
#include <zip.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "data/pixels.hpp"
#include "data/sources.hpp"

namespace fedgrid::data {
namespace {

struct ZipCloser {
  void operator()(zip_t* z) const { zip_discard(z); }  // read-only: nothing to write back
};
using ZipHandle = std::unique_ptr<zip_t, ZipCloser>;

ZipHandle open_zip(const std::string& path) {
  if (std::error_code ec; !std::filesystem::exists(path, ec)) throw DataError(path, "file not found");
  int code = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_RDONLY, &code);
  if (!z) {
    zip_error_t error;
    zip_error_init_with_code(&error, code);
    const std::string message = zip_error_strerror(&error);
    zip_error_fini(&error);
    throw DataError(path, "not a readable .npz (zip) archive: " + message);
  }
  return ZipHandle(z);
}

std::vector<uint8_t> read_entry(zip_t* z, const std::string& path, const std::string& entry) {
  zip_stat_t st;
  if (zip_stat(z, entry.c_str(), 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
    throw DataError(path, "has no array '" + entry + "' (MedMNIST files hold {train,val,test}_{images,labels})");
  std::unique_ptr<zip_file_t, decltype(&zip_fclose)> f(zip_fopen(z, entry.c_str(), 0), &zip_fclose);
  if (!f) throw DataError(path, "cannot open '" + entry + "': " + zip_strerror(z));
  // In bounded chunks: the size is the archive's word, and a damaged or lying header must fail
  // on truncation, not on a multi-gigabyte allocation (found by fuzz/fuzz_npz.cpp).
  std::vector<uint8_t> bytes;
  constexpr uint64_t kChunk = 16u << 20;
  while (bytes.size() < st.size) {
    const uint64_t want = std::min<uint64_t>(kChunk, st.size - bytes.size());
    const size_t at = bytes.size();
    bytes.resize(at + want);
    const zip_int64_t got = zip_fread(f.get(), bytes.data() + at, want);
    if (got < 0 || uint64_t(got) != want)
      throw DataError(path, "'" + entry + "' is truncated or corrupt (read " + std::to_string(at + uint64_t(std::max<zip_int64_t>(got, 0))) +
                                " of " + std::to_string(st.size) + " bytes)");
  }
  return bytes;
}

struct NpyArray {
  std::string descr;  // numpy dtype string, e.g. |u1, <i8
  std::vector<uint64_t> shape;
  const uint8_t* data = nullptr;
  uint64_t data_bytes = 0;
};

// The .npy header: magic, version, header length, then a Python dict literal
// {'descr': '|u1', 'fortran_order': False, 'shape': (N, 28, 28), }.
NpyArray parse_npy(const std::vector<uint8_t>& bytes, const std::string& path, const std::string& entry) {
  const auto fail = [&](const std::string& what) { return DataError(path, entry + ": " + what); };
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) throw fail("not a .npy array (bad magic)");
  const int major = bytes[6];
  size_t header_len = 0, offset = 0;
  if (major == 1) {
    header_len = size_t(bytes[8]) | size_t(bytes[9]) << 8, offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw fail("truncated .npy header");
    header_len = size_t(bytes[8]) | size_t(bytes[9]) << 8 | size_t(bytes[10]) << 16 | size_t(bytes[11]) << 24;
    offset = 12;
  } else {
    throw fail(".npy format version " + std::to_string(major) + " is not supported");
  }
  if (offset + header_len > bytes.size()) throw fail("truncated .npy header");
  const std::string header(reinterpret_cast<const char*>(bytes.data() + offset), header_len);
  auto value_of = [&](const std::string& key) {
    const size_t k = header.find("'" + key + "'");
    if (k == std::string::npos) throw fail(".npy header has no '" + key + "'");
    const size_t colon = header.find(':', k);
    if (colon == std::string::npos) throw fail("malformed .npy header");
    return header.substr(colon + 1);
  };
  NpyArray a;
  std::string descr = value_of("descr");
  const size_t q1 = descr.find('\''), q2 = descr.find('\'', q1 + 1);
  if (q1 == std::string::npos || q2 == std::string::npos) throw fail("malformed dtype in .npy header");
  a.descr = descr.substr(q1 + 1, q2 - q1 - 1);
  const std::string order = value_of("fortran_order");
  if (order.substr(0, order.find(',')).find("True") != std::string::npos)
    throw fail("Fortran-ordered arrays are not supported");
  const std::string shape = value_of("shape");
  const size_t open = shape.find('('), close = shape.find(')');
  if (open == std::string::npos || close == std::string::npos) throw fail("malformed shape in .npy header");
  std::string dims = shape.substr(open + 1, close - open - 1);
  for (size_t pos = 0; pos < dims.size();) {
    const size_t comma = std::min(dims.find(',', pos), dims.size());
    std::string d = dims.substr(pos, comma - pos);
    d.erase(std::remove(d.begin(), d.end(), ' '), d.end());
    if (!d.empty()) {
      if (d.find_first_not_of("0123456789") != std::string::npos) throw fail("malformed shape '" + dims + "'");
      // Each dimension fits the readers' 32-bit counts; longer digit strings would overflow stoull.
      if (d.size() > 10 || std::stoull(d) > 0xFFFFFFFFull) throw fail("dimension " + d + " in shape '" + dims + "' is too large");
      a.shape.push_back(std::stoull(d));
    }
    pos = comma + 1;
  }
  a.data = bytes.data() + offset + header_len;
  a.data_bytes = bytes.size() - offset - header_len;
  return a;
}

uint64_t element_size(const std::string& descr) {
  if (descr == "|u1" || descr == "|i1" || descr == "<u1") return 1;
  if (descr == "<i4" || descr == "<u4") return 4;
  if (descr == "<i8" || descr == "<u8") return 8;
  return 0;
}

// The number of elements, or UINT64_MAX when the product overflows (more than any data holds).
uint64_t element_count(const NpyArray& a) {
  uint64_t n = 1;
  for (uint64_t d : a.shape)
    if (__builtin_mul_overflow(n, d, &n)) return UINT64_MAX;
  return n;
}

RawImages read_images(zip_t* z, const std::string& path, const std::string& split, Pixels pixels) {
  const std::string entry = split + "_images.npy";
  const auto bytes = read_entry(z, path, entry);
  const NpyArray a = parse_npy(bytes, path, entry);
  if (a.descr != "|u1") throw DataError(path, entry + ": images must be uint8, got dtype '" + a.descr + "'");
  if (a.shape.size() != 3 && a.shape.size() != 4)
    throw DataError(path, entry + ": images must be (N, H, W) or (N, H, W, C), got " +
                              std::to_string(a.shape.size()) + " dimensions");
  if (a.data_bytes < element_count(a)) throw DataError(path, entry + ": truncated image data");
  RawImages raw;
  raw.count = uint32_t(a.shape[0]), raw.rows = uint32_t(a.shape[1]), raw.cols = uint32_t(a.shape[2]);
  raw.channels = a.shape.size() == 4 ? uint32_t(a.shape[3]) : 1;
  if (raw.count == 0 || raw.rows == 0 || raw.cols == 0 || raw.channels == 0)
    throw DataError(path, entry + ": empty image array");
  if (pixels != Pixels::Keep) return raw;
  // HWC (numpy) -> CHW (torch).
  const size_t plane = size_t(raw.rows) * raw.cols, image = plane * raw.channels;
  raw.pixels.resize(size_t(raw.count) * image);
  for (size_t n = 0; n < raw.count; ++n)
    for (size_t p = 0; p < plane; ++p)
      for (size_t c = 0; c < raw.channels; ++c)
        raw.pixels[n * image + c * plane + p] = a.data[n * image + p * raw.channels + c];
  return raw;
}

std::vector<int64_t> read_labels(zip_t* z, const std::string& path, const std::string& split, uint32_t count) {
  const std::string entry = split + "_labels.npy";
  const auto bytes = read_entry(z, path, entry);
  const NpyArray a = parse_npy(bytes, path, entry);
  const uint64_t size = element_size(a.descr);
  if (!size) throw DataError(path, entry + ": labels must be integers, got dtype '" + a.descr + "'");
  if (a.shape.empty() || a.shape[0] != count || element_count(a) != count)
    throw DataError(path, entry + ": expected one label per image (" + std::to_string(count) + ")");
  if (a.data_bytes < count * size) throw DataError(path, entry + ": truncated label data");
  std::vector<int64_t> labels(count);
  for (size_t i = 0; i < count; ++i) {
    int64_t v = 0;
    if (size == 1) v = a.data[i];
    else if (size == 4) v = int32_t(uint32_t(a.data[4 * i]) | uint32_t(a.data[4 * i + 1]) << 8 |
                                    uint32_t(a.data[4 * i + 2]) << 16 | uint32_t(a.data[4 * i + 3]) << 24);
    else std::memcpy(&v, a.data + 8 * i, 8);  // little-endian host
    if (v < 0) throw DataError(path, entry + ": negative label " + std::to_string(v) + " at index " + std::to_string(i));
    labels[i] = v;
  }
  return labels;
}

}  // namespace

void check_npz(const std::string& path) {
  ZipHandle z = open_zip(path);
  for (const char* entry : {"train_images.npy", "train_labels.npy", "test_images.npy", "test_labels.npy"})
    if (zip_name_locate(z.get(), entry, 0) < 0)
      throw DataError(path, std::string("has no array '") + entry + "'");
}

TrainTest load_npz(const std::string& path, const std::string& name, Pixels pixels) {
  ZipHandle z = open_zip(path);
  const RawImages train = read_images(z.get(), path, "train", pixels);
  auto train_labels = read_labels(z.get(), path, "train", train.count);
  const RawImages test = read_images(z.get(), path, "test", pixels);
  if (test.rows != train.rows || test.cols != train.cols || test.channels != train.channels)
    throw DataError(path, "test images differ in shape from train images");
  auto test_labels = read_labels(z.get(), path, "test", test.count);
  int64_t max_label = 0;
  for (auto v : train_labels) max_label = std::max(max_label, v);
  for (auto v : test_labels)
    if (v > max_label) throw DataError(path, "test label " + std::to_string(v) + " never occurs in the train split");
  return to_train_test(name, int(max_label + 1), train, std::move(train_labels), test, std::move(test_labels));
}

}  // namespace fedgrid::data

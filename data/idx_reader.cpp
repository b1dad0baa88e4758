// IDX (LeCun's MNIST format) reader. zlib's gz* functions read plain files transparently, so
// one code path serves both the Debian .gz files and hand-unpacked copies.
#include <zlib.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "data/pixels.hpp"
#include "data/sources.hpp"

namespace fedgrid::data {
namespace {

namespace fs = std::filesystem;

constexpr uint32_t kImagesMagic = 2051;  // unsigned bytes, 3 dimensions
constexpr uint32_t kLabelsMagic = 2049;  // unsigned bytes, 1 dimension
// Sanity caps so a corrupt header cannot make us wait on a multi-gigabyte read.
constexpr uint32_t kMaxSide = 4096;
constexpr uint32_t kMaxCount = 100'000'000;

struct GzCloser {
  void operator()(gzFile_s* f) const { gzclose(f); }
};
using GzHandle = std::unique_ptr<gzFile_s, GzCloser>;

class IdxFile {
 public:
  explicit IdxFile(std::string path) : path_(std::move(path)) {
    handle_.reset(gzopen(path_.c_str(), "rb"));
    if (!handle_) throw DataError(path_, "cannot open file");
    gzbuffer(handle_.get(), 1 << 20);
  }
  const std::string& path() const { return path_; }

  uint32_t read_u32(const char* field) {
    unsigned char b[4];
    read_exact(b, 4, std::string("file ends inside the header (") + field + ")");
    return uint32_t(b[0]) << 24 | uint32_t(b[1]) << 16 | uint32_t(b[2]) << 8 | uint32_t(b[3]);
  }

  // Reads in bounded chunks so that a lying header fails on truncation, not on allocation.
  std::vector<uint8_t> read_body(uint64_t bytes, const std::string& what) {
    std::vector<uint8_t> out;
    constexpr uint64_t kChunk = 16u << 20;
    while (out.size() < bytes) {
      const uint64_t want = std::min(kChunk, bytes - out.size());
      const size_t at = out.size();
      out.resize(at + want);
      read_exact(out.data() + at, unsigned(want), "truncated: expected " + what);
    }
    expect_end(what);
    return out;
  }

  // read_body's checks without keeping the bytes.
  void read_through(uint64_t bytes, const std::string& what) {
    std::vector<uint8_t> chunk(std::min<uint64_t>(bytes, 1u << 20));
    for (uint64_t done = 0; done < bytes;) {
      const uint64_t want = std::min<uint64_t>(chunk.size(), bytes - done);
      read_exact(chunk.data(), unsigned(want), "truncated: expected " + what);
      done += want;
    }
    expect_end(what);
  }

 private:
  void expect_end(const std::string& what) {
    unsigned char extra;
    if (gzread(handle_.get(), &extra, 1) > 0) throw DataError(path_, "unexpected bytes after " + what);
  }

  void read_exact(void* into, unsigned n, const std::string& problem) {
    const int got = gzread(handle_.get(), into, n);
    if (got == int(n)) return;
    int code = Z_OK;
    const char* msg = gzerror(handle_.get(), &code);
    std::string detail = (code != Z_OK && msg && *msg) ? std::string(" (") + msg + ")" : "";
    throw DataError(path_, problem + detail);
  }

  std::string path_;
  GzHandle handle_;
};

std::string without_trailing_slashes(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

// Prefers the .gz name the Debian package ships, falls back to an unpacked copy.
std::string locate(const std::string& dir, const std::string& stem) {
  const fs::path gz = fs::path(dir) / (stem + ".gz");
  const fs::path plain = fs::path(dir) / stem;
  std::error_code ec;
  if (fs::is_regular_file(gz, ec)) return gz.string();
  if (fs::is_regular_file(plain, ec)) return plain.string();
  std::string msg = "file is missing (nor is there an uncompressed " + stem + ")";
  if (!fs::is_directory(dir, ec)) msg += "; directory " + dir + " does not exist";
  if (without_trailing_slashes(fs::path(dir).lexically_normal().string()) == kFashionMnistDir)
    msg += "; install the Debian package dataset-fashion-mnist (apt-get install dataset-fashion-mnist)";
  throw DataError(gz.string(), msg);
}

RawImages read_images(const std::string& path, Pixels pixels) {
  IdxFile file(path);
  const uint32_t magic = file.read_u32("magic");
  if (magic != kImagesMagic)
    throw DataError(path, "bad magic number " + std::to_string(magic) + ", expected " +
                              std::to_string(kImagesMagic) + " for an IDX image file");
  RawImages raw;
  raw.count = file.read_u32("image count");
  raw.rows = file.read_u32("rows");
  raw.cols = file.read_u32("columns");
  if (raw.count == 0 || raw.count > kMaxCount)
    throw DataError(path, "implausible image count " + std::to_string(raw.count));
  if (raw.rows == 0 || raw.cols == 0 || raw.rows > kMaxSide || raw.cols > kMaxSide)
    throw DataError(path, "implausible image size " + std::to_string(raw.rows) + "x" +
                              std::to_string(raw.cols));
  const uint64_t bytes = uint64_t(raw.count) * raw.rows * raw.cols;
  const std::string what =
      std::to_string(raw.count) + " images of " + std::to_string(raw.rows) + "x" + std::to_string(raw.cols) + " bytes";
  if (pixels == Pixels::Keep) raw.pixels = file.read_body(bytes, what);
  else if (pixels == Pixels::Check) file.read_through(bytes, what);
  return raw;
}

std::vector<int64_t> read_labels(const std::string& path, uint32_t expected_count,
                                 int num_classes) {
  IdxFile file(path);
  const uint32_t magic = file.read_u32("magic");
  if (magic != kLabelsMagic)
    throw DataError(path, "bad magic number " + std::to_string(magic) + ", expected " +
                              std::to_string(kLabelsMagic) + " for an IDX label file");
  const uint32_t count = file.read_u32("label count");
  if (count != expected_count)
    throw DataError(path, "holds " + std::to_string(count) + " labels but its images file holds " +
                              std::to_string(expected_count) + " images");
  const std::vector<uint8_t> raw = file.read_body(count, std::to_string(count) + " labels");
  std::vector<int64_t> labels(raw.begin(), raw.end());
  for (size_t i = 0; i < labels.size(); ++i)
    if (labels[i] >= num_classes)
      throw DataError(path, "label " + std::to_string(labels[i]) + " at index " +
                                std::to_string(i) + " is not below num_classes=" +
                                std::to_string(num_classes));
  return labels;
}

}  // namespace

void check_idx_dir(const std::string& dir) {
  for (const char* stem : {"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                           "t10k-labels-idx1-ubyte"})
    locate(dir, stem);
}

TrainTest load_idx_dir(const std::string& dir, const std::string& name, int num_classes, Pixels pixels) {
  if (num_classes < 1) throw std::invalid_argument("num_classes must be positive");
  const std::string train_images_path = locate(dir, "train-images-idx3-ubyte");
  const std::string train_labels_path = locate(dir, "train-labels-idx1-ubyte");
  const std::string test_images_path = locate(dir, "t10k-images-idx3-ubyte");
  const std::string test_labels_path = locate(dir, "t10k-labels-idx1-ubyte");

  const RawImages train = read_images(train_images_path, pixels);
  auto train_labels = read_labels(train_labels_path, train.count, num_classes);
  const RawImages test = read_images(test_images_path, pixels);
  if (test.rows != train.rows || test.cols != train.cols)
    throw DataError(test_images_path,
                    "image size " + std::to_string(test.rows) + "x" + std::to_string(test.cols) +
                        " differs from the train split's " + std::to_string(train.rows) + "x" +
                        std::to_string(train.cols));
  auto test_labels = read_labels(test_labels_path, test.count, num_classes);

  return to_train_test(name, num_classes, train, std::move(train_labels), test, std::move(test_labels));
}

}  // namespace fedgrid::data

// The MedMNIST .npz reader, on small archives written here (numpy's .npy v1.0 inside a zip).
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <zip.h>

#include <map>

#include "data/pixels.hpp"
#include "data/sources.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

using Bytes = std::vector<uint8_t>;

// A .npy v1.0 file: magic, version, header length, dict padded to a multiple of 64, data.
Bytes npy(const std::string& descr, const std::vector<size_t>& shape, const Bytes& data) {
  std::string dims;
  for (size_t d : shape) dims += std::to_string(d) + ", ";
  if (shape.size() > 1) dims.resize(dims.size() - 2);
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  while ((10 + header.size() + 1) % 64) header += ' ';
  header += '\n';
  const std::string prefix = std::string("\x93NUMPY\x01\x00", 8) + char(header.size() & 0xff) +
                             char(header.size() >> 8) + header;
  Bytes out(prefix.size() + data.size());
  for (size_t i = 0; i < prefix.size(); ++i) out[i] = uint8_t(prefix[i]);
  for (size_t i = 0; i < data.size(); ++i) out[prefix.size() + i] = data[i];
  return out;
}

void write_npz(const std::string& path, const std::map<std::string, Bytes>& entries) {
  int error = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
  ASSERT_NE(z, nullptr);
  for (const auto& [name, bytes] : entries) {
    zip_source_t* src = zip_source_buffer(z, bytes.data(), bytes.size(), 0);
    ASSERT_GE(zip_file_add(z, name.c_str(), src, ZIP_FL_OVERWRITE), 0);
  }
  ASSERT_EQ(zip_close(z), 0);  // reads the buffers, which `entries` keeps alive until here
}

Bytes iota(size_t n, uint8_t start = 0) {
  Bytes b(n);
  for (size_t i = 0; i < n; ++i) b[i] = uint8_t(start + i);
  return b;
}

// Grey MedMNIST-like archive: 4 train images of 2x3 (labels 0,2,1,2 as (N,1)), 2 test images.
std::map<std::string, Bytes> grey_archive() {
  return {{"train_images.npy", npy("|u1", {4, 2, 3}, iota(24))},
          {"train_labels.npy", npy("|u1", {4, 1}, {0, 2, 1, 2})},
          {"val_images.npy", npy("|u1", {1, 2, 3}, iota(6))},
          {"val_labels.npy", npy("|u1", {1, 1}, {0})},
          {"test_images.npy", npy("|u1", {2, 2, 3}, iota(12, 100))},
          {"test_labels.npy", npy("<i8", {2}, {1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0})}};
}

TEST(Npz, ReadsAGreyArchive) {
  const std::string path = test::temp_dir("npz-grey") + "/grey.npz";
  write_npz(path, grey_archive());
  auto d = data::load_npz(path, "grey");
  EXPECT_EQ(d.train.size(), 4);
  EXPECT_EQ(d.test.size(), 2);
  EXPECT_EQ(d.train.num_classes, 3);
  EXPECT_EQ(d.train.shape.channels, 1);
  EXPECT_EQ(d.train.shape.height, 2);
  EXPECT_EQ(d.train.shape.width, 3);
  EXPECT_EQ(d.train.labels, (std::vector<int64_t>{0, 2, 1, 2}));
  EXPECT_EQ(d.test.labels, (std::vector<int64_t>{1, 2}));
  const auto table = data::normalisation_table(iota(24));
  for (size_t i = 0; i < 24; ++i) EXPECT_FLOAT_EQ(d.train.images[i], table[i]);
  EXPECT_FLOAT_EQ(d.test.images[0], table[100]);
}

TEST(Npz, ColourImagesBecomeChannelsFirst) {
  const std::string path = test::temp_dir("npz-colour") + "/colour.npz";
  auto a = grey_archive();
  a["train_images.npy"] = npy("|u1", {4, 1, 2, 3}, iota(24));  // N, H=1, W=2, C=3
  a["test_images.npy"] = npy("|u1", {2, 1, 2, 3}, iota(12));
  write_npz(path, a);
  auto d = data::load_npz(path, "colour");
  EXPECT_EQ(d.train.shape.channels, 3);
  const auto table = data::normalisation_table(iota(24));
  // Image 0 stored HWC: (w0: 0 1 2) (w1: 3 4 5) -> CHW: c0: 0 3, c1: 1 4, c2: 2 5.
  const std::vector<int> chw{0, 3, 1, 4, 2, 5};
  for (size_t i = 0; i < chw.size(); ++i) EXPECT_FLOAT_EQ(d.train.images[i], table[size_t(chw[i])]) << i;
}

std::string load_error(const std::string& tag, const std::map<std::string, Bytes>& entries) {
  const std::string path = test::temp_dir(tag) + "/bad.npz";
  write_npz(path, entries);
  try {
    data::load_npz(path, "bad");
  } catch (const data::DataError& e) {
    EXPECT_EQ(e.file(), path);
    return e.what();
  }
  return "no error";
}

TEST(Npz, CorruptArchivesNameTheFileAndTheProblem) {
  auto missing = grey_archive();
  missing.erase("test_labels.npy");
  EXPECT_NE(load_error("npz-missing", missing).find("has no array 'test_labels.npy'"), std::string::npos);

  auto magic = grey_archive();
  magic["train_images.npy"] = Bytes{'n', 'o', 't', ' ', 'n', 'p', 'y', '!', '!', '!', '!'};
  EXPECT_NE(load_error("npz-magic", magic).find("train_images.npy: not a .npy array (bad magic)"), std::string::npos);

  auto truncated = grey_archive();
  truncated["train_images.npy"] = npy("|u1", {4, 2, 3}, iota(20));
  EXPECT_NE(load_error("npz-truncated", truncated).find("truncated image data"), std::string::npos);

  auto counts = grey_archive();
  counts["train_labels.npy"] = npy("|u1", {3, 1}, {0, 1, 2});
  EXPECT_NE(load_error("npz-counts", counts).find("expected one label per image (4)"), std::string::npos);

  auto floats = grey_archive();
  floats["train_images.npy"] = npy("<f4", {1, 1, 1}, {0, 0, 0, 0});
  EXPECT_NE(load_error("npz-floats", floats).find("images must be uint8, got dtype '<f4'"), std::string::npos);

  const std::string text = test::temp_dir("npz-text") + "/text.npz";
  test::write_file(text, "this is not a zip archive\n");
  EXPECT_THROW(data::load_npz(text, "text"), data::DataError);
  try {
    data::check_npz(text);
  } catch (const data::DataError& e) {
    EXPECT_NE(std::string(e.what()).find("not a readable .npz (zip) archive"), std::string::npos) << e.what();
  }
}

// Found by fuzz/fuzz_npz.cpp: the archive's header says train_images.npy holds 2 GiB (it holds
// 896 bytes). The reader allocated what the header said before reading; now it reads in
// chunks and fails on the truncation, without the allocation.
TEST(Npz, AnEntryWhoseHeaderLiesAboutItsSizeIsRefusedWithoutAllocatingIt) {
  const std::string file = std::string(test::source_dir()) + "/tests/inputs/npz/entry_size_lies.npz";
  rusage before{};
  getrusage(RUSAGE_SELF, &before);
  try {
    data::load_npz(file, "lies");
    ADD_FAILURE() << "loaded";
  } catch (const data::DataError& e) {
    EXPECT_NE(std::string(e.what()).find("train_images.npy' is truncated or corrupt"), std::string::npos) << e.what();
  }
  rusage after{};
  getrusage(RUSAGE_SELF, &after);
  EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 512L * 1024) << "peak RSS grew by " << (after.ru_maxrss - before.ru_maxrss) << " KiB";
}

// A .npy whose header spells its shape as given.
Bytes npy_with_shape(const std::string& shape) {
  Bytes b = npy("|u1", {4, 2, 3}, iota(24));
  std::string text(b.begin(), b.end());
  const size_t at = text.find("(4, 2, 3)");
  text.replace(at, 9, shape);
  text.erase(text.find('\n') - (shape.size() - 9), shape.size() - 9);  // the header keeps its length: less padding
  return Bytes(text.begin(), text.end());
}

// Shapes past 64 bits: a DataError, not std::out_of_range from stoull (exit 1) nor a product
// that wraps around and passes the size check.
TEST(Npz, ShapesTooLargeToCountAreDataErrors) {
  auto digits = grey_archive();
  digits["train_images.npy"] = npy_with_shape("(99999999999999999999, 2, 3)");
  EXPECT_NE(load_error("npz-digits", digits).find("dimension 99999999999999999999 in shape"), std::string::npos);
  auto wraps = grey_archive();
  wraps["train_images.npy"] = npy_with_shape("(4294967295, 4294967295, 4294967295)");
  EXPECT_NE(load_error("npz-wraps", wraps).find("truncated image data"), std::string::npos);
}

TEST(Npz, ARunOnAnArchiveAndABadPathExitTwo) {
  const std::string dir = test::temp_dir("npz-run");
  // 60 train / 20 test images of 8x8, three classes.
  Bytes labels(60), test_labels(20);
  for (size_t i = 0; i < 60; ++i) labels[i] = uint8_t(i % 3);
  for (size_t i = 0; i < 20; ++i) test_labels[i] = uint8_t(i % 3);
  write_npz(dir + "/tiny.npz", {{"train_images.npy", npy("|u1", {60, 8, 8}, iota(60 * 64))},
                                {"train_labels.npy", npy("|u1", {60, 1}, labels)},
                                {"test_images.npy", npy("|u1", {20, 8, 8}, iota(20 * 64))},
                                {"test_labels.npy", npy("|u1", {20, 1}, test_labels)}});
  const std::string yaml = "name: npz\nplatform: {hospitals: [{count: 2, tier: strong}]}\ndata: {dataset: npz:" + dir +
                           "/tiny.npz}\nmodel: {arch: mlp}\nstop: {rounds: 1}\noutput: {trace: false}\n";
  test::run_ok("npz-run-ok", yaml);
  test::expect_run_input_error("npz-run-missing", yaml, "--set data.dataset=npz:" + dir + "/absent.npz",
                               "key 'data.dataset': " + dir + "/absent.npz: file not found");
}

}  // namespace
}  // namespace fedgrid

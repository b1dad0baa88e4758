// Data layer: IDX reading (real and hand-made files), synthetic data, partitioners, splits.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "data/partition.hpp"
#include "data/sources.hpp"

namespace fs = std::filesystem;
using namespace fedgrid::data;

namespace {

// ---------- helpers ----------

void expect_invalid(const std::function<void()>& call, const std::string& needle) {
  try {
    call();
    ADD_FAILURE() << "expected std::invalid_argument mentioning " << needle;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

// Runs the load and returns the DataError's message, failing the test if none was thrown.
std::string data_error_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const DataError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected DataError";
  return "";
}

void put_u32(std::vector<uint8_t>& out, uint32_t v) {
  for (int shift : {24, 16, 8, 0}) out.push_back(uint8_t(v >> shift));
}

std::vector<uint8_t> idx_images(uint32_t count, uint32_t rows, uint32_t cols,
                                const std::vector<uint8_t>& pixels, uint32_t magic = 2051) {
  std::vector<uint8_t> out;
  for (uint32_t v : {magic, count, rows, cols}) put_u32(out, v);
  out.insert(out.end(), pixels.begin(), pixels.end());
  return out;
}

std::vector<uint8_t> idx_labels(uint32_t count, const std::vector<uint8_t>& labels,
                                uint32_t magic = 2049) {
  std::vector<uint8_t> out;
  for (uint32_t v : {magic, count}) put_u32(out, v);
  out.insert(out.end(), labels.begin(), labels.end());
  return out;
}

void write_file(const fs::path& path, const std::vector<uint8_t>& bytes, bool gzip) {
  if (gzip) {
    gzFile f = gzopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(gzwrite(f, bytes.data(), unsigned(bytes.size())), int(bytes.size()));
    gzclose(f);
  } else {
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                std::streamsize(bytes.size()));
  }
}

// A fresh directory per test, removed afterwards.
class IdxDir : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("fedgrid_idx_" + std::to_string(getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string file(const std::string& stem, bool gzip) const {
    return (dir_ / (gzip ? stem + ".gz" : stem)).string();
  }
  // Train: 4 images of 2x3, test: 2 images; pixel values chosen so the stats are easy.
  void write_valid_set(bool gzip) {
    write_file(file("train-images-idx3-ubyte", gzip), idx_images(4, 2, 3, train_pixels()), gzip);
    write_file(file("train-labels-idx1-ubyte", gzip), idx_labels(4, {0, 1, 2, 1}), gzip);
    write_file(file("t10k-images-idx3-ubyte", gzip), idx_images(2, 2, 3, test_pixels()), gzip);
    write_file(file("t10k-labels-idx1-ubyte", gzip), idx_labels(2, {2, 0}), gzip);
  }
  static std::vector<uint8_t> train_pixels() {
    std::vector<uint8_t> p(24);
    for (size_t i = 0; i < p.size(); ++i) p[i] = uint8_t(i * 10);
    return p;
  }
  static std::vector<uint8_t> test_pixels() { return std::vector<uint8_t>(12, 255); }
  TrainTest load() const { return load_idx_dir(dir_.string(), "tiny", 3); }

  fs::path dir_;
};

double mean_of(const std::vector<float>& v) {
  double s = 0;
  for (float x : v) s += x;
  return s / double(v.size());
}

double std_of(const std::vector<float>& v) {
  const double m = mean_of(v);
  double s = 0;
  for (float x : v) s += (x - m) * (x - m);
  return std::sqrt(s / double(v.size()));
}

std::vector<int64_t> balanced_labels(int64_t n, int classes) {
  std::vector<int64_t> labels(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) labels[size_t(i)] = i % classes;
  return labels;
}

void expect_disjoint_covering(const std::vector<Indices>& parts, int64_t pool) {
  std::vector<int> seen(size_t(pool), 0);
  for (const Indices& part : parts) {
    EXPECT_TRUE(std::is_sorted(part.begin(), part.end()));
    for (int64_t i : part) {
      ASSERT_GE(i, 0);
      ASSERT_LT(i, pool);
      ++seen[size_t(i)];
    }
  }
  for (int64_t i = 0; i < pool; ++i) ASSERT_EQ(seen[size_t(i)], 1) << "sample " << i;
}

// Mean over hospitals of the largest class share: 1/classes for perfect balance, 1 for one-class.
double mean_top_class_share(const std::vector<Indices>& parts, const std::vector<int64_t>& labels,
                            int classes) {
  double total = 0;
  for (const Indices& part : parts) {
    std::vector<int64_t> hist(size_t(classes), 0);
    for (int64_t i : part) ++hist[size_t(labels[size_t(i)])];
    total += double(*std::max_element(hist.begin(), hist.end())) / double(part.size());
  }
  return total / double(parts.size());
}

}  // namespace

// ---------- IDX: real Fashion-MNIST ----------

TEST(IdxReal, FashionMnistLoadsAndNormalises) {
  if (!fs::exists(kFashionMnistDir)) GTEST_SKIP() << "dataset-fashion-mnist not installed";
  const TrainTest data = load_idx_dir(kFashionMnistDir, "fashion-mnist");
  EXPECT_EQ(data.train.name, "fashion-mnist");
  EXPECT_EQ(data.train.size(), 60000);
  EXPECT_EQ(data.test.size(), 10000);
  for (const Dataset* ds : {&data.train, &data.test}) {
    EXPECT_EQ(ds->shape.channels, 1);
    EXPECT_EQ(ds->shape.height, 28);
    EXPECT_EQ(ds->shape.width, 28);
    EXPECT_EQ(ds->num_classes, 10);
    EXPECT_EQ(int64_t(ds->images.size()), ds->size() * 784);
    std::set<int64_t> classes(ds->labels.begin(), ds->labels.end());
    EXPECT_EQ(classes.size(), 10u);
    EXPECT_EQ(*classes.begin(), 0);
    EXPECT_EQ(*classes.rbegin(), 9);
  }
  EXPECT_NEAR(mean_of(data.train.images), 0.0, 1e-3);
  EXPECT_NEAR(std_of(data.train.images), 1.0, 1e-3);
  // Same transform on test: close to, not exactly, standardised.
  EXPECT_NEAR(mean_of(data.test.images), 0.0, 0.05);
}

// ---------- IDX: hand-made files ----------

TEST_F(IdxDir, ReadsGzipAndPlainIdentically) {
  write_valid_set(true);
  const TrainTest gz = load();
  fs::remove_all(dir_);
  fs::create_directories(dir_);
  write_valid_set(false);
  const TrainTest plain = load();

  EXPECT_EQ(gz.train.images, plain.train.images);
  EXPECT_EQ(gz.test.images, plain.test.images);
  EXPECT_EQ(gz.train.labels, (std::vector<int64_t>{0, 1, 2, 1}));
  EXPECT_EQ(gz.test.labels, (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(gz.train.shape.channels, 1);
  EXPECT_EQ(gz.train.shape.height, 2);
  EXPECT_EQ(gz.train.shape.width, 3);
  EXPECT_EQ(gz.train.num_classes, 3);
  EXPECT_EQ(gz.train.name, "tiny");
}

TEST_F(IdxDir, NormalisesBothSplitsWithTrainStatistics) {
  write_valid_set(true);
  const TrainTest data = load();
  double mean = 0, sq = 0;
  for (uint8_t p : train_pixels()) mean += p / 255.0;
  mean /= 24;
  for (uint8_t p : train_pixels()) sq += (p / 255.0 - mean) * (p / 255.0 - mean);
  const double stddev = std::sqrt(sq / 24);
  for (size_t i = 0; i < 24; ++i)
    EXPECT_NEAR(data.train.images[i], (train_pixels()[i] / 255.0 - mean) / stddev, 1e-5);
  for (float v : data.test.images) EXPECT_NEAR(v, (1.0 - mean) / stddev, 1e-5);
}

TEST_F(IdxDir, MissingDirectoryNamesTheFile) {
  const std::string msg =
      data_error_of([&] { load_idx_dir((dir_ / "nowhere").string(), "x", 10); });
  EXPECT_NE(msg.find("train-images-idx3-ubyte"), std::string::npos) << msg;
  EXPECT_NE(msg.find("missing"), std::string::npos) << msg;
}

TEST_F(IdxDir, MissingFileNamesTheFile) {
  write_valid_set(true);
  fs::remove(file("t10k-labels-idx1-ubyte", true));
  const std::string msg = data_error_of([&] { load(); });
  EXPECT_NE(msg.find("t10k-labels-idx1-ubyte"), std::string::npos) << msg;
  EXPECT_NE(msg.find("missing"), std::string::npos) << msg;
}

// The hint is keyed on the package's directory; point that at a missing path to reach it even
// where the package is installed.
TEST_F(IdxDir, FashionMnistDirMentionsDebianPackage) {
  const std::string missing = (dir_ / "fashion-mnist").string();
  const char* installed = kFashionMnistDir;
  kFashionMnistDir = missing.c_str();
  const std::string msg = data_error_of([&] { load_idx_dir(missing + "/", "fashion-mnist"); });
  kFashionMnistDir = installed;
  EXPECT_NE(msg.find("dataset-fashion-mnist"), std::string::npos) << msg;
  const std::string other = data_error_of([&] { load_idx_dir(dir_.string(), "x"); });
  EXPECT_EQ(other.find("dataset-fashion-mnist"), std::string::npos) << other;
}

TEST_F(IdxDir, BadMagicNamesTheFile) {
  write_valid_set(false);
  write_file(file("train-labels-idx1-ubyte", false), idx_labels(4, {0, 1, 2, 1}, 2051), false);
  const std::string msg = data_error_of([&] { load(); });
  EXPECT_NE(msg.find("train-labels-idx1-ubyte"), std::string::npos) << msg;
  EXPECT_NE(msg.find("magic"), std::string::npos) << msg;
}

TEST_F(IdxDir, TruncatedPlainFileNamesTheFile) {
  write_valid_set(false);
  const auto full = train_pixels();
  const std::vector<uint8_t> pixels(full.begin(), full.end() - 4);  // header still says 4 images
  write_file(file("train-images-idx3-ubyte", false), idx_images(4, 2, 3, pixels), false);
  const std::string msg = data_error_of([&] { load(); });
  EXPECT_NE(msg.find("train-images-idx3-ubyte"), std::string::npos) << msg;
  EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
}

TEST_F(IdxDir, TruncatedGzipFileNamesTheFile) {
  write_valid_set(true);
  const std::string path = file("t10k-images-idx3-ubyte", true);
  fs::resize_file(path, fs::file_size(path) / 2);
  const std::string msg = data_error_of([&] { load(); });
  EXPECT_NE(msg.find("t10k-images-idx3-ubyte"), std::string::npos) << msg;
}

TEST_F(IdxDir, TruncatedHeaderNamesTheFile) {
  write_valid_set(false);
  write_file(file("t10k-labels-idx1-ubyte", false), {0, 0, 8}, false);
  const std::string msg = data_error_of([&] { load(); });
  EXPECT_NE(msg.find("t10k-labels-idx1-ubyte"), std::string::npos) << msg;
}

TEST_F(IdxDir, CountMismatchNamesTheLabelFile) {
  write_valid_set(true);
  write_file(file("train-labels-idx1-ubyte", true), idx_labels(3, {0, 1, 2}), true);
  const std::string msg = data_error_of([&] { load(); });
  EXPECT_NE(msg.find("train-labels-idx1-ubyte"), std::string::npos) << msg;
}

TEST_F(IdxDir, LabelOutOfRangeNamesTheFile) {
  write_valid_set(true);
  write_file(file("t10k-labels-idx1-ubyte", true), idx_labels(2, {2, 3}), true);
  const std::string msg = data_error_of([&] { load(); });
  EXPECT_NE(msg.find("t10k-labels-idx1-ubyte"), std::string::npos) << msg;
}

TEST_F(IdxDir, TestImageSizeMustMatchTrain) {
  write_valid_set(true);
  write_file(file("t10k-images-idx3-ubyte", true), idx_images(2, 3, 2, test_pixels()), true);
  const std::string msg = data_error_of([&] { load(); });
  EXPECT_NE(msg.find("t10k-images-idx3-ubyte"), std::string::npos) << msg;
}

TEST_F(IdxDir, TrailingBytesAreRejected) {
  write_valid_set(false);
  write_file(file("train-labels-idx1-ubyte", false), idx_labels(4, {0, 1, 2, 1, 0}), false);
  const std::string msg = data_error_of([&] { load(); });
  EXPECT_NE(msg.find("train-labels-idx1-ubyte"), std::string::npos) << msg;
}

// ---------- synthetic ----------

TEST(Synthetic, DeterministicPerSeed) {
  SyntheticOptions o;
  o.train_samples = 300;
  o.test_samples = 100;
  const TrainTest a = make_synthetic(o), b = make_synthetic(o);
  EXPECT_EQ(a.train.images, b.train.images);
  EXPECT_EQ(a.train.labels, b.train.labels);
  EXPECT_EQ(a.test.images, b.test.images);
  o.seed = 2;
  const TrainTest c = make_synthetic(o);
  EXPECT_NE(a.train.images, c.train.images);
  EXPECT_NE(a.train.images, c.test.images);
  EXPECT_NE(a.train.images.front(), a.test.images.front());  // independent streams per split
}

TEST(Synthetic, ShapeAndBalance) {
  SyntheticOptions o;
  o.train_samples = 250;
  o.test_samples = 70;
  o.num_classes = 5;
  o.shape = {3, 8, 6};
  const TrainTest d = make_synthetic(o);
  EXPECT_EQ(d.train.name, "synthetic");
  EXPECT_EQ(d.train.size(), 250);
  EXPECT_EQ(d.test.size(), 70);
  EXPECT_EQ(d.train.images.size(), size_t(250 * 3 * 8 * 6));
  EXPECT_EQ(d.test.shape.channels, 3);
  std::vector<int> hist(5, 0);
  for (int64_t l : d.train.labels) ++hist[size_t(l)];
  for (int h : hist) EXPECT_EQ(h, 50);
  EXPECT_FALSE(std::is_sorted(d.train.labels.begin(), d.train.labels.end()));
}

// Nearest class mean is a crude stand-in for a trained model: if it already scores >90%,
// a small MLP or CNN certainly will.
TEST(Synthetic, LearnableByNearestClassMean) {
  SyntheticOptions o;  // noise 1.0, 28x28, 10 classes
  const TrainTest d = make_synthetic(o);
  const size_t px = size_t(o.shape.pixels());
  std::vector<std::vector<double>> means(10, std::vector<double>(px, 0.0));
  std::vector<int> counts(10, 0);
  for (int64_t i = 0; i < d.train.size(); ++i) {
    const int64_t l = d.train.labels[size_t(i)];
    ++counts[size_t(l)];
    for (size_t p = 0; p < px; ++p) means[size_t(l)][p] += d.train.images[size_t(i) * px + p];
  }
  for (int c = 0; c < 10; ++c)
    for (double& m : means[size_t(c)]) m /= counts[size_t(c)];
  int correct = 0;
  for (int64_t i = 0; i < d.test.size(); ++i) {
    int best = -1;
    double best_d = 1e300;
    for (int c = 0; c < 10; ++c) {
      double dist = 0;
      for (size_t p = 0; p < px; ++p) {
        const double diff = d.test.images[size_t(i) * px + p] - means[size_t(c)][p];
        dist += diff * diff;
      }
      if (dist < best_d) best_d = dist, best = c;
    }
    correct += best == d.test.labels[size_t(i)];
  }
  EXPECT_GT(double(correct) / double(d.test.size()), 0.9);
}

TEST(Synthetic, RejectsBadOptions) {
  auto with = [](auto edit) {
    SyntheticOptions o;
    edit(o);
    return [o] { make_synthetic(o); };
  };
  expect_invalid(with([](SyntheticOptions& o) { o.train_samples = 0; }), "train_samples");
  expect_invalid(with([](SyntheticOptions& o) { o.test_samples = -1; }), "test_samples");
  expect_invalid(with([](SyntheticOptions& o) { o.num_classes = 1; }), "num_classes");
  expect_invalid(with([](SyntheticOptions& o) { o.shape.height = 0; }), "shape");
  expect_invalid(with([](SyntheticOptions& o) { o.noise = -1; }), "noise");
}

// ---------- partition ----------

TEST(Partition, IidSizesDisjointCovering) {
  const auto labels = balanced_labels(1003, 10);
  PartitionOptions o;
  const auto parts = partition(labels, 10, 7, o);
  ASSERT_EQ(parts.size(), 7u);
  size_t lo = SIZE_MAX, hi = 0;
  for (const auto& p : parts) lo = std::min(lo, p.size()), hi = std::max(hi, p.size());
  EXPECT_LE(hi - lo, 1u);
  expect_disjoint_covering(parts, 1003);
  EXPECT_EQ(parts, partition(labels, 10, 7, o));
}

TEST(Partition, DirichletSkewedDeterministicAndCovering) {
  const auto labels = balanced_labels(3000, 10);
  PartitionOptions iid_o, dir_o;
  dir_o.scheme = PartitionScheme::Dirichlet;
  dir_o.beta = 0.1;
  const auto iid = partition(labels, 10, 10, iid_o);
  const auto dir = partition(labels, 10, 10, dir_o);
  expect_disjoint_covering(dir, 3000);
  EXPECT_LT(mean_top_class_share(iid, labels, 10), 0.2);
  EXPECT_GT(mean_top_class_share(dir, labels, 10), 0.5);
  EXPECT_EQ(dir, partition(labels, 10, 10, dir_o));
  dir_o.seed = 99;
  EXPECT_NE(dir, partition(labels, 10, 10, dir_o));
}

TEST(Partition, DirichletRespectsMinSamples) {
  const auto labels = balanced_labels(2000, 10);
  PartitionOptions o;
  o.scheme = PartitionScheme::Dirichlet;
  o.beta = 0.1;
  o.min_samples = 40;
  const auto parts = partition(labels, 10, 20, o);
  expect_disjoint_covering(parts, 2000);
  for (const auto& p : parts) EXPECT_GE(p.size(), 40u);
  // min_samples above pool/hospitals is capped at the fair share (reachable here: near-even
  // proportions over a tiny pool round to an exact 10/10 split).
  o.beta = 100;
  o.min_samples = 1000;
  for (const auto& p : partition(balanced_labels(20, 2), 2, 2, o)) EXPECT_EQ(p.size(), 10u);
}

TEST(Partition, DirichletImpossibleThrows) {
  const auto labels = balanced_labels(500, 10);
  PartitionOptions o;
  o.scheme = PartitionScheme::Dirichlet;
  o.beta = 1e-4;  // each class goes to one hospital: at most 10 of 50 can be filled
  o.min_samples = 5;
  expect_invalid([&] { partition(labels, 10, 50, o); }, "partition.");
}

TEST(Partition, ShardsLimitClassesPerHospital) {
  // 100 per class, 20 shards of 50: every shard is pure, so at most k classes each.
  std::vector<int64_t> labels(1000);
  for (size_t i = 0; i < labels.size(); ++i) labels[i] = int64_t(i % 10);
  PartitionOptions o;
  o.scheme = PartitionScheme::Shards;
  o.classes_per_hospital = 2;
  auto parts = partition(labels, 10, 10, o);
  expect_disjoint_covering(parts, 1000);
  for (const auto& p : parts) {
    std::set<int64_t> classes;
    for (int64_t i : p) classes.insert(labels[size_t(i)]);
    EXPECT_LE(classes.size(), 2u);
    EXPECT_EQ(p.size(), 100u);
  }
  // Uneven cuts: a shard may straddle one class boundary, so at most 2k classes.
  const auto uneven = balanced_labels(1037, 10);
  o.classes_per_hospital = 3;
  parts = partition(uneven, 10, 7, o);
  expect_disjoint_covering(parts, 1037);
  for (const auto& p : parts) {
    std::set<int64_t> classes;
    for (int64_t i : p) classes.insert(uneven[size_t(i)]);
    EXPECT_LE(classes.size(), 6u);
  }
  EXPECT_EQ(parts, partition(uneven, 10, 7, o));
}

TEST(Partition, BalancedGivesEveryHospitalTheSameCountOfEveryClass) {
  // Classes of 30, 25 and 41 samples over 4 hospitals: min(30/4, 25/4, 41/4) = 6 of each.
  std::vector<int64_t> labels;
  for (auto [c, n] : std::vector<std::pair<int64_t, int>>{{0, 30}, {1, 25}, {2, 41}})
    labels.insert(labels.end(), size_t(n), c);
  PartitionOptions o;
  o.scheme = PartitionScheme::Balanced;
  auto parts = partition(labels, 3, 4, o);
  std::set<int64_t> seen;
  for (const auto& p : parts) {
    std::map<int64_t, int> count;
    for (int64_t i : p) {
      count[labels[size_t(i)]]++;
      EXPECT_TRUE(seen.insert(i).second) << "dealt twice";
    }
    EXPECT_EQ(count, (std::map<int64_t, int>{{0, 6}, {1, 6}, {2, 6}}));
  }
  EXPECT_EQ(parts, partition(labels, 3, 4, o));
  EXPECT_THROW(partition(labels, 3, 26, o), std::invalid_argument);  // class 1 has 25 < 26
}

TEST(Partition, BadOptionsNameTheOption) {
  const auto labels = balanced_labels(100, 10);
  PartitionOptions o;
  o.scheme = PartitionScheme::Dirichlet;
  o.beta = 0;
  expect_invalid([&] { partition(labels, 10, 4, o); }, "partition.beta");
  o.beta = -1;
  expect_invalid([&] { partition(labels, 10, 4, o); }, "partition.beta");
  o.scheme = PartitionScheme::Shards;
  o.classes_per_hospital = 0;
  expect_invalid([&] { partition(labels, 10, 4, o); }, "partition.classes_per_hospital");
  o.classes_per_hospital = 11;
  expect_invalid([&] { partition(labels, 10, 4, o); }, "partition.classes_per_hospital");
  o.scheme = PartitionScheme::Iid;
  expect_invalid([&] { partition(labels, 10, 0, o); }, "hospitals");
  expect_invalid([&] { partition(labels, 10, 101, o); }, "hospitals");
  expect_invalid([&] { partition({0, 1, 12}, 10, 1, o); }, "label");
}

// ---------- split_stratified ----------

TEST(Split, StratifiedDisjointCoveringProportional) {
  const auto labels = balanced_labels(2000, 10);
  Indices held;
  for (int64_t i = 0; i < 2000; i += 3) held.push_back(i);
  held.push_back(1);  // an odd class size somewhere
  std::sort(held.begin(), held.end());
  const SplitFractions f{0.7, 0.1, 0.2};
  const HospitalSplit s = split_stratified(held, labels, f, 5);

  Indices all;
  for (const Indices* part : {&s.train, &s.val, &s.test}) {
    EXPECT_TRUE(std::is_sorted(part->begin(), part->end()));
    all.insert(all.end(), part->begin(), part->end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, held);

  for (int c = 0; c < 10; ++c) {
    auto count = [&](const Indices& v) {
      return double(std::count_if(v.begin(), v.end(), [&](int64_t i) { return labels[size_t(i)] == c; }));
    };
    const double n = count(held);
    EXPECT_LE(std::abs(count(s.train) - n * f.train), 1.0) << "class " << c;
    EXPECT_LE(std::abs(count(s.val) - n * f.val), 1.0) << "class " << c;
    EXPECT_LE(std::abs(count(s.test) - n * f.test), 1.0) << "class " << c;
  }
  const HospitalSplit again = split_stratified(held, labels, f, 5);
  EXPECT_EQ(s.train, again.train);
  EXPECT_EQ(s.test, again.test);
  EXPECT_NE(s.train, split_stratified(held, labels, f, 6).train);
}

TEST(Split, TinyClassesNeverOverflow) {
  const std::vector<int64_t> labels{0, 1, 1, 2, 2, 2};
  const HospitalSplit s = split_stratified({0, 1, 2, 3, 4, 5}, labels, {0.5, 0.5, 0.0}, 1);
  EXPECT_EQ(s.train.size() + s.val.size() + s.test.size(), 6u);
}

TEST(Split, BadFractionsNameTheOption) {
  const std::vector<int64_t> labels{0, 1};
  expect_invalid([&] { split_stratified({0, 1}, labels, {0.7, 0.2, 0.2}, 1); }, "data.split");
  expect_invalid([&] { split_stratified({0, 1}, labels, {1.2, -0.2, 0.0}, 1); }, "data.split");
}

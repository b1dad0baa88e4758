// Class sizes and site sizes given as numbers (FedSKD's stand-ins, algorithms/fedskd/README.md):
// data.tasks[].class_counts keeps the first n_c training samples of each class, and
// data.partition.scheme counts deals each hospital its row of data.partition.counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "data/partition.hpp"
#include "data/tasks.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

using test::cells;
using test::lines;
using test::read_file;

// Labels 0..classes-1 with sizes[c] samples of class c, interleaved (0, 1, 2, 0, 1, 2, ...).
std::vector<int64_t> pool_of(const std::vector<int>& sizes) {
  std::vector<int64_t> labels;
  std::vector<int> left = sizes;
  for (bool any = true; any;) {
    any = false;
    for (size_t c = 0; c < left.size(); ++c)
      if (left[c] > 0) labels.push_back(int64_t(c)), --left[c], any = true;
  }
  return labels;
}

// hospital -> class -> count of the samples it holds.
std::vector<std::map<int64_t, int64_t>> class_counts_of(const std::vector<data::Indices>& held,
                                                        const std::vector<int64_t>& labels) {
  std::vector<std::map<int64_t, int64_t>> out(held.size());
  for (size_t h = 0; h < held.size(); ++h)
    for (int64_t i : held[h]) ++out[h][labels[size_t(i)]];
  return out;
}

std::string partition_error(const std::vector<int64_t>& labels, int classes, int hospitals,
                            const data::PartitionOptions& o) {
  try {
    data::partition(labels, classes, hospitals, o);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

// FedSKD's FedASD sites (Weng et al. 2025, Table I): ASD / TC subjects per site.
const std::vector<std::vector<int64_t>> kFedAsdSites{{76, 96}, {128, 116}, {77, 104}, {122, 152}};

TEST(GivenCounts, EveryHospitalHoldsItsRowExactly) {
  const auto labels = pool_of({450, 500});  // 403 and 468 asked: some of each class left over
  data::PartitionOptions o;
  o.scheme = data::PartitionScheme::Counts, o.counts = kFedAsdSites, o.seed = 11;
  const auto held = data::partition(labels, 2, 4, o);
  ASSERT_EQ(held.size(), 4u);
  const auto counts = class_counts_of(held, labels);
  std::set<int64_t> seen;
  for (size_t h = 0; h < 4; ++h) {
    EXPECT_EQ(counts[h].at(0), kFedAsdSites[h][0]) << "hospital " << h;
    EXPECT_EQ(counts[h].at(1), kFedAsdSites[h][1]) << "hospital " << h;
    EXPECT_TRUE(std::is_sorted(held[h].begin(), held[h].end()));
    for (int64_t i : held[h]) EXPECT_TRUE(seen.insert(i).second) << "sample " << i << " dealt twice";
  }
  EXPECT_EQ(seen.size(), 871u);  // the left-over 79 samples are dealt to no one

  // A zero count leaves that hospital without the class.
  o.counts = {{3, 0}, {0, 4}};
  const auto zero = class_counts_of(data::partition(labels, 2, 2, o), labels);
  EXPECT_EQ(zero[0], (std::map<int64_t, int64_t>{{0, 3}}));
  EXPECT_EQ(zero[1], (std::map<int64_t, int64_t>{{1, 4}}));
}

TEST(GivenCounts, TheSeedDecidesWhichSamplesAndNothingElse) {
  const auto labels = pool_of({450, 500});
  data::PartitionOptions o;
  o.scheme = data::PartitionScheme::Counts, o.counts = kFedAsdSites, o.seed = 11;
  const auto first = data::partition(labels, 2, 4, o);
  EXPECT_EQ(first, data::partition(labels, 2, 4, o));
  o.seed = 12;
  const auto other = data::partition(labels, 2, 4, o);
  EXPECT_NE(first, other);
  EXPECT_EQ(class_counts_of(first, labels), class_counts_of(other, labels));
  // The counts' own stream: the balanced scheme at the same seed draws another deal.
  o.seed = 11;
  o.counts = {{112, 117}, {112, 117}, {112, 117}, {112, 117}};
  data::PartitionOptions balanced;
  balanced.scheme = data::PartitionScheme::Balanced, balanced.seed = 11;
  EXPECT_EQ(class_counts_of(data::partition(labels, 2, 4, balanced), labels)[0],
            (std::map<int64_t, int64_t>{{0, 112}, {1, 112}}));
  EXPECT_NE(data::partition(labels, 2, 4, o), data::partition(labels, 2, 4, balanced));
}

TEST(GivenCounts, BadTablesAreRefusedWithTheNumbers) {
  const auto labels = pool_of({450, 500});
  data::PartitionOptions o;
  o.scheme = data::PartitionScheme::Counts, o.counts = kFedAsdSites;
  EXPECT_EQ(partition_error(labels, 2, 3, o), "partition.counts: has 4 rows; there are 3 hospitals (a row per hospital)");
  EXPECT_EQ(partition_error(labels, 3, 4, o),
            "partition.counts: row 0 has 2 counts; there are 3 classes (a column per class)");
  o.counts[2][1] = -1;
  EXPECT_EQ(partition_error(labels, 2, 4, o), "partition.counts: row 2, class 1: -1 is negative");
  o.counts = {{300, 1}, {151, 1}};
  EXPECT_EQ(partition_error(labels, 2, 2, o), "partition.counts: class 0: the rows ask for 451 samples; the pool holds 450");
}

// n images of 1x2x2 whose pixels all equal their index, labels as given.
data::Dataset tiny(int classes, const std::vector<int64_t>& labels) {
  data::Dataset d;
  d.name = "tiny", d.num_classes = classes, d.shape = {1, 2, 2}, d.labels = labels;
  for (size_t i = 0; i < labels.size(); ++i) d.images.insert(d.images.end(), 4, float(i));
  return d;
}

std::pair<std::string, std::string> task_error(const data::TaskSource& t) {
  try {
    data::merge_tasks({t});
  } catch (const data::TaskError& e) {
    return {e.key, e.what()};
  }
  return {"", "no error"};
}

TEST(ClassCounts, KeepsTheFirstSamplesOfEachClassInTheClassesOrder) {
  //                         index: 0  1  2  3  4  5  6  7  8  9
  data::TaskSource t{{tiny(4, {2, 0, 2, 1, 0, 2, 3, 0, 2, 1}), tiny(4, {0, 1, 2, 3})}, {2, 0, 1}, 0, {3, 1, 2}};
  const auto m = data::merge_tasks({t});
  // Class 2 (label 0): samples 0, 2, 5; class 0 (label 1): sample 1; class 1 (label 2): 3, 9.
  EXPECT_EQ(m.data.train.labels, (std::vector<int64_t>{0, 1, 0, 2, 0, 2}));
  std::vector<float> first_pixels;
  for (int64_t i = 0; i < m.data.train.size(); ++i) first_pixels.push_back(m.data.train.images[size_t(i * 4)]);
  EXPECT_EQ(first_pixels, (std::vector<float>{0, 1, 2, 3, 5, 9}));
  EXPECT_EQ(m.data.test.labels, (std::vector<int64_t>{1, 2, 0}));  // the test split is never cut
}

TEST(ClassCounts, BadCountsAreRefusedNamingTheKey) {
  data::TaskSource t{{tiny(4, {2, 0, 2, 1, 0, 2, 3, 0, 2, 1}), tiny(4, {0})}, {2, 0, 1}, 0, {3, 1}};
  EXPECT_EQ(task_error(t), std::make_pair(std::string("class_counts"),
                                          std::string("task 0: class_counts has 2 counts; the task keeps 3 classes "
                                                      "(one count per class, in order)")));
  t.class_counts = {3, 1, 3};
  EXPECT_EQ(task_error(t).second, "task 0: class_counts asks for 3 training samples of class 1; tiny has 2");
  t.class_counts = {3, -1, 2};
  EXPECT_EQ(task_error(t).second, "task 0: class_counts count 1 is -1; counts are 0 or more");
  t.class_counts = {3, 1, 2};
  t.train_samples = 5;
  EXPECT_EQ(task_error(t).second,
            "task 0: class_counts not with train_samples (keep the first N samples, or the first n_c of each class)");
  t.classes = {}, t.train_samples = 0;  // every class, in the dataset's order: four counts
  EXPECT_EQ(task_error(t).second,
            "task 0: class_counts has 3 counts; the task keeps 4 classes (one count per class, in order)");
}

// Two tasks on synthetic data (10 classes of ~120 training samples): task 0 keeps three
// classes in given sizes for two hospitals, task 1 four classes for one; every hospital is
// dealt its row of the counts table, all for training.
std::string counts_scenario(const std::string& name) {
  return "name: " + name + R"(
seed: 3
platform:
  hospitals:
    - {count: 2, tier: strong}
    - {count: 1, tier: weak}
data:
  tasks:
    - {dataset: synthetic, classes: [4, 1, 7], class_counts: [30, 12, 50], hospitals: 2}
    - {dataset: synthetic, classes: [0, 1, 2, 3], hospitals: 1}
  synthetic: {train_samples: 1200, test_samples: 100, height: 8, width: 8}
  partition:
    scheme: counts
    counts: [[20, 2, 40, 0, 0, 0, 0], [10, 10, 5, 0, 0, 0, 0], [0, 0, 0, 9, 8, 7, 6]]
  split: {train: 1.0, val: 0, test: 0}
model: {arch: mlp}
stop: {rounds: 1}
output: {trace: false}
)";
}

TEST(CountsRun, EveryHospitalTrainsOnItsRow) {
  const auto out = test::run_ok("counts-run", counts_scenario("counts-run"));
  std::vector<std::string> samples;
  for (const auto& row : lines(read_file(out + "/hospitals.csv")))
    if (row.rfind("1,", 0) == 0) samples.push_back(cells(row)[3]);
  EXPECT_EQ(samples, (std::vector<std::string>{"62", "25", "30"}));
}

// `yaml` with `from` replaced by `to` (one occurrence).
std::string replaced(std::string yaml, const std::string& from, const std::string& to) {
  return yaml.replace(yaml.find(from), from.size(), to);
}

TEST(CountsRun, BadTablesExitTwoNamingTheKey) {
  const std::string s = counts_scenario("counts-bad");
  // In the file: its name and the key's line.
  test::expect_run_input_error("counts-in-file", replaced(s, "[0, 0, 0, 9, 8, 7, 6]]", "]"), "",
                               "s.yaml:14: key 'data.partition.counts': has 2 rows; the platform has 3 hospitals");
  test::expect_run_input_error("counts-columns", s, "--set 'data.partition.counts=[[1, 1], [1, 1], [1, 1]]'",
                               "key 'data.partition.counts': row 0 has 2 counts; the data has 7 classes");
  test::expect_run_input_error("counts-total", s,
                               "--set 'data.partition.counts=[[20, 2, 40, 0, 0, 0, 0], [11, 10, 5, 0, 0, 0, 0], "
                               "[0, 0, 0, 9, 8, 7, 6]]'",
                               "key 'data.partition.counts': class 0: the rows ask for 31 samples; the pool holds 30");
  test::expect_run_input_error("counts-other-task", s,
                               "--set 'data.partition.counts=[[20, 2, 40, 1, 0, 0, 0], [10, 10, 5, 0, 0, 0, 0], "
                               "[0, 0, 0, 9, 8, 7, 6]]'",
                               "row 0 asks for class 3, which its task does not hold (its classes are 0..2)");
  test::expect_run_input_error("counts-negative", s,
                               "--set 'data.partition.counts=[[20, 2, 40, 0, 0, 0, 0], [10, -1, 5, 0, 0, 0, 0], "
                               "[0, 0, 0, 9, 8, 7, 6]]'",
                               "key 'data.partition.counts[1][1]': must be >= 0, got -1");
  test::expect_run_input_error("counts-missing", s, "--set data.partition.counts=null",
                               "key 'data.partition.scheme': counts needs data.partition.counts");
  test::expect_run_input_error("counts-unused", s, "--set data.partition.scheme=iid",
                               "key 'data.partition.counts': used only with data.partition.scheme: counts");
}

TEST(CountsRun, BadClassCountsExitTwoNamingTheTaskKey) {
  const std::string s = counts_scenario("class-counts-bad");
  test::expect_run_input_error("class-counts-in-file", replaced(s, "[30, 12, 50]", "[30, 12, 500]"), "",
                               "s.yaml:9: key 'data.tasks[0].class_counts': task 0: class_counts asks for 500 training "
                               "samples of class 7;");
  test::expect_run_input_error("class-counts-length", s, "--set 'data.tasks.0.class_counts=[30, 12]'",
                               "key 'data.tasks[0].class_counts': task 0: class_counts has 2 counts; the task keeps 3");
  test::expect_run_input_error("class-counts-with-train-samples", s, "--set data.tasks.0.train_samples=90",
                               "key 'data.tasks[0].class_counts': task 0: class_counts not with train_samples");
  test::expect_run_input_error("class-counts-negative", s, "--set 'data.tasks.0.class_counts=[30, -2, 50]'",
                               "key 'data.tasks[0].class_counts[1]': must be >= 0, got -2");
}

}  // namespace
}  // namespace fedgrid

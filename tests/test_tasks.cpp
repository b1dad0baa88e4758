// Tasks that differ between hospitals: merging into one label space, resizing, whole runs; and
// data.label_map, which merges one dataset's classes.
#include <gtest/gtest.h>

#include "data/label_map.hpp"
#include "data/tasks.hpp"
#include "tests/helpers.hpp"

namespace fedgrid {
namespace {

using test::lines;
using test::cells;
using test::read_file;

// n images of 1x2x2 whose pixels all equal their index, labels as given.
data::Dataset tiny(const std::string& name, int classes, const std::vector<int64_t>& labels, int side = 2) {
  data::Dataset d;
  d.name = name, d.num_classes = classes, d.shape = {1, side, side}, d.labels = labels;
  for (size_t i = 0; i < labels.size(); ++i) d.images.insert(d.images.end(), size_t(side * side), float(i));
  return d;
}

TEST(Tasks, MergeIntoOneLabelSpaceInTaskOrder) {
  data::TaskSource a{{tiny("a", 4, {0, 1, 2, 3, 3, 1}), tiny("a", 4, {3, 0, 1})}, {3, 1}};  // keeps 3 -> 0, 1 -> 1
  data::TaskSource b{{tiny("b", 2, {1, 0}), tiny("b", 2, {0})}, {}};                           // all: 0 -> 2, 1 -> 3
  auto m = data::merge_tasks({a, b});
  EXPECT_EQ(m.data.train.num_classes, 4);
  EXPECT_EQ(m.data.train.labels, (std::vector<int64_t>{1, 0, 0, 1, 3, 2}));
  EXPECT_EQ(m.data.test.labels, (std::vector<int64_t>{0, 1, 2}));
  // Images follow their labels: task a's samples 1, 3, 4, 5 then task b's 0, 1.
  std::vector<float> first_pixels;
  for (int64_t i = 0; i < m.data.train.size(); ++i) first_pixels.push_back(m.data.train.images[size_t(i * 4)]);
  EXPECT_EQ(first_pixels, (std::vector<float>{1, 3, 4, 5, 0, 1}));
  ASSERT_EQ(m.train_ranges.size(), 2u);
  EXPECT_EQ(m.train_ranges[0].begin, 0);
  EXPECT_EQ(m.train_ranges[0].end, 4);
  EXPECT_EQ(m.train_ranges[1].label_offset, 2);
  EXPECT_EQ(m.train_ranges[1].classes, 2);
  EXPECT_EQ(m.data.train.name, "a+b");

  a.train_samples = 2;  // the first two kept samples only
  EXPECT_EQ(data::merge_tasks({a, b}).data.train.labels, (std::vector<int64_t>{1, 0, 3, 2}));
}

TEST(Tasks, BadTasksAreRefusedWithTheTaskNamed) {
  data::TaskSource a{{tiny("a", 4, {0, 1}), tiny("a", 4, {0})}, {}};
  data::TaskSource wrong_class{{tiny("b", 2, {0, 1}), tiny("b", 2, {0})}, {5}};
  data::TaskSource bigger{{tiny("c", 2, {0, 1}, 3), tiny("c", 2, {0}, 3)}, {}};
  auto message = [](const std::vector<data::TaskSource>& t) {
    try {
      data::merge_tasks(t);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({a, wrong_class}).find("task 1: class 5 is not in b"), std::string::npos);
  EXPECT_NE(message({a, bigger}).find("task 1 has 1x3x3 images, task 0 1x2x2"), std::string::npos);
}

TEST(Tasks, BilinearResizeWithHalfPixelCentres) {
  data::Dataset d;
  d.shape = {1, 2, 2}, d.num_classes = 1, d.labels = {0}, d.images = {0, 1, 2, 3};
  data::resize_images(d, 4);
  ASSERT_EQ(d.images.size(), 16u);
  EXPECT_EQ(d.shape.height, 4);
  // Output x = 0..3 maps to source 0 (clamped), 0.25, 0.75, 1 (clamped); the same for y.
  const std::vector<float> row0{0, 0.25f, 0.75f, 1}, row1{0.5f, 0.75f, 1.25f, 1.5f};
  for (int x = 0; x < 4; ++x) {
    EXPECT_FLOAT_EQ(d.images[size_t(x)], row0[size_t(x)]) << x;
    EXPECT_FLOAT_EQ(d.images[size_t(4 + x)], row1[size_t(x)]) << x;
  }
  EXPECT_FLOAT_EQ(d.images[15], 3);
}

TEST(LabelMap, MergesClassesInBothSplits) {
  // RetinaMNIST's grades 0-4 into normal, NPDR (grades 1-3), PDR (grade 4): CarPe-FL's mapping.
  data::TrainTest d{tiny("grades", 5, {0, 1, 2, 3, 4, 4, 2}), tiny("grades", 5, {4, 3, 0})};
  data::relabel(d, {0, 1, 1, 1, 2});
  EXPECT_EQ(d.train.num_classes, 3);
  EXPECT_EQ(d.test.num_classes, 3);
  EXPECT_EQ(d.train.labels, (std::vector<int64_t>{0, 1, 1, 1, 2, 2, 1}));
  EXPECT_EQ(d.test.labels, (std::vector<int64_t>{2, 1, 0}));
  EXPECT_EQ(d.train.images, tiny("grades", 5, {0, 1, 2, 3, 4, 4, 2}).images);  // images untouched
}

TEST(LabelMap, BadMapsAreRefused) {
  auto message = [](const std::vector<int>& map) {
    data::TrainTest d{tiny("seven", 7, {0, 6}), tiny("seven", 7, {1})};
    try {
      data::relabel(d, map);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message({1, 1, 0}), "has 3 entries; seven has 7 classes (one entry per original class, 0..6)");
  EXPECT_EQ(message({0, 0, 2, 2, 0, 0, 2}),
            "new class 1 receives no original class (the new classes must be 0..2, each used)");
  EXPECT_EQ(message({0, 0, -1, 1, 1, 1, 1}), "entry 2 is -1; new classes are 0 or more");
  EXPECT_EQ(message({1, 1, 0, 0, 1, 0, 0}), "no error");  // DermaMNIST's malignant (akiec, bcc, mel) = 1
}

std::string tasks_scenario(const std::string& name) {
  return "name: " + name + R"(
platform:
  hospitals:
    - {count: 2, tier: strong}
    - {count: 2, tier: medium}
    - {count: 2, tier: weak}
data:
  tasks:
    - {dataset: fashion-mnist, classes: [0, 1, 2, 3], hospitals: 2}
    - {dataset: fashion-mnist, classes: [4, 5, 6], hospitals: 2}
    - {dataset: synthetic, hospitals: 2}
  synthetic: {train_samples: 600, test_samples: 100}
  resize: 32
model: {arch: mlp}
stop: {rounds: 1}
output: {trace: false}
)";
}

TEST(Tasks, ARunOnThreeTasksUsesTheUnifiedHead) {
  auto out = test::run_ok("tasks-run", tasks_scenario("tasks-run"));
  // mlp on 1x32x32 with 4 + 3 + 10 = 17 outputs: (1024*200 + 200) + (200*200 + 200) + (200*17 + 17) values.
  const int64_t values = (1024 * 200 + 200) + (200 * 200 + 200) + (200 * 17 + 17);
  for (const auto& row : lines(read_file(out + "/events.csv")))
    if (row.find(",send,") != std::string::npos) EXPECT_EQ(cells(row)[5], std::to_string(values * 4 + 64)) << row;
  // Each task's hospitals hold that task's share: 24,000 and 18,000 Fashion-MNIST images, 600 synthetic.
  std::vector<int64_t> samples;
  for (const auto& row : lines(read_file(out + "/hospitals.csv")))
    if (row.rfind("1,", 0) == 0) samples.push_back(std::stoll(cells(row)[3]));
  ASSERT_EQ(samples.size(), 6u);
  EXPECT_NEAR(double(samples[0] + samples[1]), 0.7 * 24000, 10);
  EXPECT_NEAR(double(samples[2] + samples[3]), 0.7 * 18000, 10);
  EXPECT_NEAR(double(samples[4] + samples[5]), 0.7 * 600, 10);
}

TEST(LabelMap, ARunTrainsTheMergedClassesAndBadKeysExitTwo) {
  const std::string scenario = R"(name: label-map
platform:
  hospitals:
    - {count: 2, tier: strong}
data:
  dataset: synthetic
  synthetic: {train_samples: 200, test_samples: 50, classes: 5}
  label_map: [0, 1, 1, 1, 2]
model: {arch: mlp}
stop: {rounds: 1}
output: {trace: false}
)";
  auto out = test::run_ok("label-map", scenario);
  // mlp on 1x28x28 with 3 outputs: (784*200 + 200) + (200*200 + 200) + (200*3 + 3) values.
  const int64_t values = (784 * 200 + 200) + (200 * 200 + 200) + (200 * 3 + 3);
  for (const auto& row : lines(read_file(out + "/events.csv")))
    if (row.find(",send,") != std::string::npos) EXPECT_EQ(cells(row)[5], std::to_string(values * 4 + 64)) << row;
  test::expect_run_input_error("label-map-short", scenario, "--set 'data.label_map=[0, 1, 2]'",
                               "key 'data.label_map': has 3 entries; synthetic has 5 classes");
  test::expect_run_input_error("label-map-gap", scenario, "--set 'data.label_map=[0, 2, 2, 2, 3]'",
                               "key 'data.label_map': new class 1 receives no original class");
  test::expect_run_input_error("label-map-negative", scenario, "--set 'data.label_map=[0, -1, 1, 1, 1]'",
                               "data.label_map");
  test::expect_run_input_error("label-map-tasks", tasks_scenario("label-map-tasks"), "--set 'data.label_map=[0, 1]'",
                               "key 'data.label_map': relabels data.dataset; with data.tasks");
}

TEST(Tasks, TaskHospitalsMustMatchThePlatform) {
  test::expect_run_input_error("tasks-count", tasks_scenario("tasks-count"), "--set data.tasks.2.hospitals=3",
                               "key 'data.tasks': the tasks are given to 7 hospitals, the platform has 6");
  test::expect_run_input_error("tasks-class", tasks_scenario("tasks-class"), "--set 'data.tasks.0.classes=[0, 12]'",
                               "task 0: class 12 is not in fashion-mnist");
}

}  // namespace
}  // namespace fedgrid

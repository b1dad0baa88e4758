#pragma once
// Tasks that differ between hospitals (UniFed's setting): several datasets, each for its own
// group of hospitals, merged into one training pool and one global test set over a unified
// label space (task 0's classes first, then task 1's, ...). And the 28 -> 32 resize the
// CIFAR-style models need.
#include <stdexcept>
#include <string>
#include <vector>

#include "data/dataset.hpp"

namespace fedgrid::data {

struct TaskSource {
  TrainTest data;
  std::vector<int> classes;  // original labels kept, in this order; empty = all of them
  int64_t train_samples = 0;  // > 0: only the first this many kept training samples (UniFed's code keeps 8,000)
  // Non-empty: only the first class_counts[k] training samples of kept class k (a dataset's
  // class sizes, e.g. Derm7pt's for FedSKD's FedSkin stand-in); not with train_samples.
  std::vector<int> class_counts;
};

// A task refused: which task, and which of its keys ("classes", "class_counts"; "" for the
// task as a whole), so that the caller can name data.tasks[i].<key> and its line. The message
// is "task <i>" followed by `rest` (": class 5 is not in ...", " keeps no training samples").
struct TaskError : std::invalid_argument {
  TaskError(size_t task, std::string key, const std::string& rest)
      : std::invalid_argument("task " + std::to_string(task) + rest), task(task), key(std::move(key)) {}
  size_t task;
  std::string key;
};

struct TaskRange {
  int64_t begin = 0, end = 0;  // this task's samples in the merged training pool
  int label_offset = 0, classes = 0;
};

struct MergedTasks {
  TrainTest data;
  std::vector<TaskRange> train_ranges;  // one per task, in order
};

// Throws TaskError (naming the task by index) when a class is not in its dataset, the tasks'
// image shapes differ, or class_counts does not fit the task's classes or dataset.
MergedTasks merge_tasks(const std::vector<TaskSource>& tasks);

// Bilinear resize of every image to side x side (half-pixel centres, edges clamped: what
// PIL's and torch's bilinear give when enlarging).
void resize_images(Dataset& d, int side);

}  // namespace fedgrid::data

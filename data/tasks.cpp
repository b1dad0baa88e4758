#include "data/tasks.hpp"

#include <algorithm>
#include <cmath>

namespace fedgrid::data {
namespace {

// Appends the samples of `from` whose label is kept, relabelled into the unified space: the
// first `limit` of them (0: all), or with per_class non-empty the first per_class[k] of kept class k.
void append_kept(Dataset& into, const Dataset& from, const std::vector<int>& label_map, int offset, int64_t limit,
                 const std::vector<int>& per_class = {}) {
  const size_t pixels = size_t(from.shape.pixels());
  int64_t kept = 0;
  std::vector<int64_t> kept_of(per_class.size(), 0);
  for (int64_t i = 0; i < from.size() && (limit <= 0 || kept < limit); ++i) {
    const int mapped = label_map[size_t(from.labels[size_t(i)])];
    if (mapped < 0) continue;
    if (!per_class.empty() && kept_of[size_t(mapped)]++ >= per_class[size_t(mapped)]) continue;
    ++kept;
    into.labels.push_back(offset + mapped);
    if (from.images.empty()) continue;  // read without its pixels (data::Pixels)
    into.images.insert(into.images.end(), from.images.begin() + i * int64_t(pixels),
                       from.images.begin() + (i + 1) * int64_t(pixels));
  }
}

// class_counts against the task's kept classes and the samples its dataset has of each.
void check_class_counts(size_t t, const TaskSource& task, const std::vector<int>& kept) {
  const auto& counts = task.class_counts;
  if (counts.empty()) return;
  auto refuse = [t](const std::string& why) { throw TaskError(t, "class_counts", ": class_counts " + why); };
  if (task.train_samples > 0)
    refuse("not with train_samples (keep the first N samples, or the first n_c of each class)");
  if (counts.size() != kept.size())
    refuse("has " + std::to_string(counts.size()) + " counts; the task keeps " + std::to_string(kept.size()) +
           " classes (one count per class, in order)");
  std::vector<int64_t> available(size_t(task.data.train.num_classes), 0);
  for (int64_t label : task.data.train.labels) ++available[size_t(label)];
  for (size_t k = 0; k < kept.size(); ++k) {
    if (counts[k] < 0)
      refuse("count " + std::to_string(k) + " is " + std::to_string(counts[k]) + "; counts are 0 or more");
    if (counts[k] > available[size_t(kept[k])])
      refuse("asks for " + std::to_string(counts[k]) + " training samples of class " + std::to_string(kept[k]) + "; " +
             task.data.train.name + " has " + std::to_string(available[size_t(kept[k])]));
  }
}

}  // namespace

MergedTasks merge_tasks(const std::vector<TaskSource>& tasks) {
  if (tasks.empty()) throw std::invalid_argument("no tasks");
  MergedTasks out;
  const ImageShape shape = tasks.front().data.train.shape;
  std::string name;
  int offset = 0;
  for (size_t t = 0; t < tasks.size(); ++t) {
    const auto& task = tasks[t];
    const auto& s = task.data.train.shape;
    if (s.channels != shape.channels || s.height != shape.height || s.width != shape.width)
      throw TaskError(t, "", " has " + std::to_string(s.channels) + "x" + std::to_string(s.height) + "x" +
                                 std::to_string(s.width) + " images, task 0 " + std::to_string(shape.channels) + "x" +
                                 std::to_string(shape.height) + "x" + std::to_string(shape.width) +
                                 " (data.resize can equalise sides, not channels)");
    const int available = task.data.train.num_classes;
    std::vector<int> label_map(size_t(available), -1);
    std::vector<int> kept = task.classes;
    if (kept.empty())
      for (int c = 0; c < available; ++c) kept.push_back(c);
    for (size_t k = 0; k < kept.size(); ++k) {
      if (kept[k] < 0 || kept[k] >= available)
        throw TaskError(t, "classes", ": class " + std::to_string(kept[k]) + " is not in " + task.data.train.name +
                                          " (classes 0.." + std::to_string(available - 1) + ")");
      if (label_map[size_t(kept[k])] >= 0)
        throw TaskError(t, "classes", ": class " + std::to_string(kept[k]) + " listed twice");
      label_map[size_t(kept[k])] = int(k);
    }
    check_class_counts(t, task, kept);
    TaskRange range{out.data.train.size(), 0, offset, int(kept.size())};
    append_kept(out.data.train, task.data.train, label_map, offset, task.train_samples, task.class_counts);
    append_kept(out.data.test, task.data.test, label_map, offset, 0);
    range.end = out.data.train.size();
    if (range.end == range.begin) throw TaskError(t, "", " keeps no training samples");
    out.train_ranges.push_back(range);
    offset += int(kept.size());
    name += (name.empty() ? "" : "+") + task.data.train.name;
  }
  // The merged pool's range covers every task's (each was normalised with its own statistics).
  PixelRange range = tasks.front().data.train.range;
  for (const auto& task : tasks)
    range = {std::min(range.low, task.data.train.range.low), std::max(range.high, task.data.train.range.high)};
  for (Dataset* d : {&out.data.train, &out.data.test})
    d->shape = shape, d->num_classes = offset, d->name = name, d->range = range;
  return out;
}

void resize_images(Dataset& d, int side) {
  const int c = d.shape.channels, h = d.shape.height, w = d.shape.width;
  if (h == side && w == side) return;
  std::vector<float> out(size_t(d.size()) * size_t(c) * size_t(side) * size_t(side));
  auto source = [](int i, int in, int outn, int& lo, int& hi, float& frac) {
    const double s = std::clamp((i + 0.5) * double(in) / double(outn) - 0.5, 0.0, double(in - 1));
    lo = int(std::floor(s)), hi = std::min(lo + 1, in - 1), frac = float(s - lo);
  };
  for (int64_t n = 0; n < d.size(); ++n)
    for (int ch = 0; ch < c; ++ch) {
      const float* src = d.images.data() + (n * c + ch) * int64_t(h) * w;
      float* dst = out.data() + (n * c + ch) * int64_t(side) * side;
      for (int y = 0; y < side; ++y) {
        int y0, y1;
        float fy;
        source(y, h, side, y0, y1, fy);
        for (int x = 0; x < side; ++x) {
          int x0, x1;
          float fx;
          source(x, w, side, x0, x1, fx);
          const float top = src[y0 * w + x0] * (1 - fx) + src[y0 * w + x1] * fx;
          const float bottom = src[y1 * w + x0] * (1 - fx) + src[y1 * w + x1] * fx;
          dst[y * side + x] = top * (1 - fy) + bottom * fy;
        }
      }
    }
  d.images = std::move(out);
  d.shape.height = d.shape.width = side;
}

}  // namespace fedgrid::data

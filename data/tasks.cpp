#include "data/tasks.hpp"

#include <algorithm>
#include <cmath>

namespace fedgrid::data {
namespace {

// Appends the samples of `from` whose label is kept, relabelled into the unified space.
void append_kept(Dataset& into, const Dataset& from, const std::vector<int>& label_map, int offset, int64_t limit) {
  const size_t pixels = size_t(from.shape.pixels());
  int64_t kept = 0;
  for (int64_t i = 0; i < from.size() && (limit <= 0 || kept < limit); ++i) {
    const int mapped = label_map[size_t(from.labels[size_t(i)])];
    if (mapped < 0) continue;
    ++kept;
    into.labels.push_back(offset + mapped);
    into.images.insert(into.images.end(), from.images.begin() + i * int64_t(pixels),
                       from.images.begin() + (i + 1) * int64_t(pixels));
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
      throw std::invalid_argument("task " + std::to_string(t) + " has " + std::to_string(s.channels) + "x" +
                                  std::to_string(s.height) + "x" + std::to_string(s.width) + " images, task 0 " +
                                  std::to_string(shape.channels) + "x" + std::to_string(shape.height) + "x" +
                                  std::to_string(shape.width) + " (data.resize can equalise sides, not channels)");
    const int available = task.data.train.num_classes;
    std::vector<int> label_map(size_t(available), -1);
    std::vector<int> kept = task.classes;
    if (kept.empty())
      for (int c = 0; c < available; ++c) kept.push_back(c);
    for (size_t k = 0; k < kept.size(); ++k) {
      if (kept[k] < 0 || kept[k] >= available)
        throw std::invalid_argument("task " + std::to_string(t) + ": class " + std::to_string(kept[k]) +
                                    " is not in " + task.data.train.name + " (classes 0.." +
                                    std::to_string(available - 1) + ")");
      if (label_map[size_t(kept[k])] >= 0)
        throw std::invalid_argument("task " + std::to_string(t) + ": class " + std::to_string(kept[k]) + " listed twice");
      label_map[size_t(kept[k])] = int(k);
    }
    TaskRange range{out.data.train.size(), 0, offset, int(kept.size())};
    append_kept(out.data.train, task.data.train, label_map, offset, task.train_samples);
    append_kept(out.data.test, task.data.test, label_map, offset, 0);
    range.end = out.data.train.size();
    if (range.end == range.begin)
      throw std::invalid_argument("task " + std::to_string(t) + " keeps no training samples");
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

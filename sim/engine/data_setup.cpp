#include "sim/engine/data_setup.hpp"

#include "data/label_map.hpp"
#include "data/rng.hpp"
#include "data/site_shift.hpp"
#include "data/sources.hpp"
#include "data/tasks.hpp"
#include "sim/core/input_error.hpp"
#include "sim/core/seed_streams.hpp"
#include "sim/engine/world.hpp"

namespace fedgrid {
namespace {

using namespace seed_streams;

// A hospital's (or the server's) train/val/test split: K-fold when data.split.folds is set,
// else stratified by the split's fractions.
data::HospitalSplit hospital_split(const Scenario& s, const data::Indices& held, const std::vector<int64_t>& labels,
                                   uint64_t seed) {
  if (s.data.split_folds > 0)
    return data::split_folds(held, labels, s.data.split_folds, s.data.split_fold, s.data.split_val, seed);
  return data::split_stratified(held, labels, {s.data.split_train, s.data.split_val, s.data.split_test}, seed);
}

data::TrainTest load_dataset(const Scenario& s, const std::string& name, const std::string& key, data::Pixels pixels) {
  const auto& d = s.data;
  try {
    if (name == "synthetic") {
      data::SyntheticOptions o;
      o.train_samples = d.synthetic_train, o.test_samples = d.synthetic_test, o.num_classes = d.synthetic_classes;
      o.shape = {d.synthetic_channels, d.synthetic_height, d.synthetic_width};
      o.noise = d.synthetic_noise, o.seed = mix_seed(s.seed, kSynthetic);
      return data::make_synthetic(o);
    }
    if (name == "fashion-mnist") return data::load_idx_dir(data::kFashionMnistDir, "fashion-mnist", 10, pixels);
    if (name.rfind("npz:", 0) == 0) return data::load_npz(name.substr(4), name, pixels);
    return data::load_idx_dir(name.substr(4), name, 10, pixels);
  } catch (const data::DataError& e) {
    throw s.error_at(key, e.what());
  } catch (const std::invalid_argument& e) {
    throw s.error_at("data.synthetic", e.what());
  }
}

// Hospitals [first, first + count) are dealt the pool samples [begin, end), whose labels are
// offset..offset + classes - 1: the whole pool without tasks, one task's samples with them.
// `pixels` is that dataset's pixel range (each task was normalised on its own).
struct Group {
  int first = 0, count = 0;
  data::TaskRange range;
  data::PixelRange pixels;
};

// data.site_shift: hospital h's samples (train, val and test) are transformed in place with
// its own parameters. Only the hospitals' samples: the server's share (data.server_share)
// stays as the dataset has it, a reference site, and so does the global test set, the
// dataset's own test split, so that accuracy on it measures how well a model reads images no
// site distorted. Deal's index lists are disjoint, so no sample is shifted twice.
void shift_site(World& world, const Group& g, int h) {
  const auto& o = world.scenario.data.site_shift;
  const data::SiteShiftOptions options{o.strength, o.intensity, o.gamma, o.blur, o.noise, o.geometry, o.colour};
  const uint64_t site_seed = mix_seed(world.scenario.seed, kSiteShift, uint64_t(h));
  const auto shift = data::draw_site_shift(options, world.data.train.shape.channels, site_seed);
  const auto& split = world.splits[size_t(h)];
  for (const data::Indices* samples : {&split.train, &split.val, &split.test})
    data::shift_samples(world.data.train, *samples, shift, g.pixels, site_seed);
}

// data.partition.counts is one table over every hospital and every class of the unified label
// space. Its shape is checked here, where both are known; each group is dealt its own rows and
// its task's columns, and a count in another task's column is refused (that task's hospitals
// hold its samples alone).
void check_counts_shape(const Scenario& s, int hospitals, int classes) {
  if (s.data.partition_scheme != data::PartitionScheme::Counts) return;
  const auto& rows = s.data.partition_counts;
  if (int(rows.size()) != hospitals)
    throw s.error_at("data.partition.counts", "has " + std::to_string(rows.size()) + " rows; the platform has " +
                                                  std::to_string(hospitals) + " hospitals (a row per hospital, in order)");
  for (size_t h = 0; h < rows.size(); ++h)
    if (int(rows[h].size()) != classes)
      throw s.error_at("data.partition.counts", "row " + std::to_string(h) + " has " + std::to_string(rows[h].size()) +
                                                    " counts; the data has " + std::to_string(classes) +
                                                    " classes (a column per class)");
}

std::vector<std::vector<int64_t>> group_counts(const Scenario& s, const Group& g) {
  std::vector<std::vector<int64_t>> out;
  for (int k = 0; k < g.count; ++k) {
    const auto& row = s.data.partition_counts[size_t(g.first + k)];
    for (int c = 0; c < int(row.size()); ++c)
      if (row[size_t(c)] != 0 && (c < g.range.label_offset || c >= g.range.label_offset + g.range.classes))
        throw s.error_at("data.partition.counts",
                         "row " + std::to_string(g.first + k) + " asks for class " + std::to_string(c) +
                             ", which its task does not hold (its classes are " + std::to_string(g.range.label_offset) +
                             ".." + std::to_string(g.range.label_offset + g.range.classes - 1) + ")");
    out.emplace_back(row.begin() + g.range.label_offset, row.begin() + g.range.label_offset + g.range.classes);
  }
  return out;
}

void deal(World& world, const Group& g, data::Indices& server_pool, bool with_pixels) {
  const Scenario& s = world.scenario;
  const auto& labels = world.data.train.labels;
  data::Indices pool;
  for (int64_t i = g.range.begin; i < g.range.end; ++i) pool.push_back(i);
  if (s.data.server_share > 0) {
    // A stratified share stays at the server; the hospitals are dealt the rest.
    auto cut = data::split_stratified(pool, labels, {s.data.server_share, 1 - s.data.server_share, 0},
                                      mix_seed(s.seed, kServerShare, uint64_t(g.first)));
    server_pool.insert(server_pool.end(), cut.train.begin(), cut.train.end());
    pool = std::move(cut.val);
  }
  std::vector<int64_t> local_labels(pool.size());
  for (size_t i = 0; i < pool.size(); ++i) local_labels[i] = labels[size_t(pool[i])] - g.range.label_offset;
  data::PartitionOptions po{s.data.partition_scheme, s.data.beta, s.data.classes_per_hospital, s.data.min_samples,
                            mix_seed(s.seed, kPartition, uint64_t(g.first)), {}};
  if (s.data.partition_scheme == data::PartitionScheme::Counts) po.counts = group_counts(s, g);
  std::vector<data::Indices> held;
  try {
    held = data::partition(local_labels, g.range.classes, g.count, po);
  } catch (const std::invalid_argument& e) {
    if (s.data.partition_scheme != data::PartitionScheme::Counts) throw s.error_at("data.partition", e.what());
    // The group's rows and columns are the table's own when there is one group; with data.tasks,
    // say which part of the table the partitioner's row and class numbers count from.
    const std::string part = s.data.tasks.empty() ? ""
                                                   : " (rows from " + std::to_string(g.first) + ", classes from " +
                                                         std::to_string(g.range.label_offset) + ")";
    std::string why = e.what();
    if (why.rfind("partition.counts: ", 0) == 0) why.erase(0, 18);  // the key is named already
    throw s.error_at("data.partition.counts", why + part);
  }
  for (int k = 0; k < g.count; ++k) {
    for (auto& i : held[size_t(k)]) i = pool[size_t(i)];  // positions in the pool -> dataset indices
    const int h = g.first + k;
    world.splits[size_t(h)] =
        hospital_split(s, held[size_t(k)], labels, mix_seed(s.seed, kSplit, uint64_t(h)));
    // Strength 0 touches nothing, so every run without site shift keeps its bytes; data read
    // without its pixels (timing-only runs, validate) has nothing to shift.
    if (s.data.site_shift.strength > 0 && with_pixels) shift_site(world, g, h);
  }
}

// data.augment transforms images (C x H x W); inputs with a side of one pixel (a vector of
// features) have no geometry to flip, rotate, shift or zoom. Named at the first augment key set.
void check_augmentable(const Scenario& s, const data::ImageShape& shape) {
  if (!s.data.augment.on() || (shape.height > 1 && shape.width > 1)) return;
  std::string key = "data.augment.flip";
  for (const char* k : {"data.augment.flip", "data.augment.rotate_deg", "data.augment.translate",
                        "data.augment.scale_min", "data.augment.scale_max"})
    if (s.key_lines.count(k)) {
      key = k;
      break;
    }
  throw s.error_at(key, "augments images; the data's inputs are " + std::to_string(shape.channels) + " x " +
                            std::to_string(shape.height) + " x " + std::to_string(shape.width) +
                            ", not images (C x H x W with H, W > 1)");
}

}  // namespace

void check_data_sources(const Scenario& s) {
  std::vector<std::pair<std::string, std::string>> sources{{s.data.dataset, "data.dataset"}};
  if (!s.data.tasks.empty()) sources.clear();
  for (size_t i = 0; i < s.data.tasks.size(); ++i)
    sources.push_back({s.data.tasks[i].dataset, "data.tasks[" + std::to_string(i) + "].dataset"});
  for (const auto& [name, key] : sources) {
    if (name == "synthetic") continue;
    try {
      if (name.rfind("npz:", 0) == 0) data::check_npz(name.substr(4));
      else data::check_idx_dir(name == "fashion-mnist" ? data::kFashionMnistDir : name.substr(4));
    } catch (const data::DataError& e) {
      throw s.error_at(key, e.what());
    }
  }
}

void set_up_data(World& world, int hospitals, data::Pixels pixels) {
  const Scenario& s = world.scenario;
  std::vector<Group> groups;
  if (s.data.tasks.empty()) {
    world.data = load_dataset(s, s.data.dataset, "data.dataset", pixels);
    if (!s.data.label_map.empty()) try {
        data::relabel(world.data, s.data.label_map);
      } catch (const std::invalid_argument& e) {
        throw s.error_at("data.label_map", e.what());
      }
    groups.push_back({0, hospitals, {0, world.data.train.size(), 0, world.data.train.num_classes}, world.data.train.range});
  } else {
    int total = 0;
    for (const auto& t : s.data.tasks) total += t.hospitals;
    if (total != hospitals)
      throw s.error_at("data.tasks", "the tasks are given to " + std::to_string(total) + " hospitals, the platform has " +
                                         std::to_string(hospitals));
    std::vector<data::TaskSource> sources;
    for (size_t i = 0; i < s.data.tasks.size(); ++i)
      sources.push_back({load_dataset(s, s.data.tasks[i].dataset, "data.tasks[" + std::to_string(i) + "].dataset", pixels),
                         s.data.tasks[i].classes, s.data.tasks[i].train_samples, s.data.tasks[i].class_counts});
    data::MergedTasks merged;
    try {
      merged = data::merge_tasks(sources);
    } catch (const data::TaskError& e) {
      throw s.error_at(e.key.empty() ? "data.tasks" : "data.tasks[" + std::to_string(e.task) + "]." + e.key, e.what());
    } catch (const std::invalid_argument& e) {
      throw s.error_at("data.tasks", e.what());
    }
    world.data = std::move(merged.data);
    int first = 0;
    for (size_t i = 0; i < s.data.tasks.size(); ++i) {
      groups.push_back({first, s.data.tasks[i].hospitals, merged.train_ranges[i], sources[i].data.train.range});
      first += s.data.tasks[i].hospitals;
    }
  }
  for (data::Dataset* d : {&world.data.train, &world.data.test}) {
    if (pixels != data::Pixels::Keep) {
      d->images = {};  // no tensors: keep the (resized) shape and the labels (synthetic data has pixels)
      if (s.data.resize) d->shape.height = d->shape.width = *s.data.resize;
    } else if (s.data.resize) {
      data::resize_images(*d, *s.data.resize);
    }
  }

  check_augmentable(s, world.data.train.shape);

  world.splits.assign(size_t(hospitals), {});
  if (!world.sample_counts.empty()) return;  // timing-only: every hospital holds a count, no samples
  check_counts_shape(s, hospitals, world.data.train.num_classes);
  data::Indices server_pool;
  for (const auto& g : groups) deal(world, g, server_pool, pixels == data::Pixels::Keep);
  if (!server_pool.empty())
    world.server_split =
        hospital_split(s, server_pool, world.data.train.labels,
                       mix_seed(s.seed, kServerShare, 0, 1));  // distinct from every group's cut
}

}  // namespace fedgrid

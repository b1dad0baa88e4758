#pragma once
// data.*: the dataset, how its training pool is dealt and split, several tasks, the sites'
// image shift, augmentation, and the synthetic dataset's options.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "data/partition_scheme.hpp"
#include "sim/core/augment_settings.hpp"
#include "sim/core/mode_names.hpp"

namespace fedgrid {

// data.partition.scheme's names (the enum is data/'s, which includes nothing of sim/); in the
// enum's namespace, where mode_name's lookup finds them.
namespace data {
inline constexpr ModeName<PartitionScheme> kPartitionSchemes[] = {
    {PartitionScheme::Iid, "iid"},           {PartitionScheme::Dirichlet, "dirichlet"},
    {PartitionScheme::Shards, "shards"},     {PartitionScheme::Balanced, "balanced"},
    {PartitionScheme::Counts, "counts"}};
constexpr std::span<const ModeName<PartitionScheme>> modes_of(PartitionScheme) { return kPartitionSchemes; }
}  // namespace data

// One task of data.tasks: a dataset (optionally a subset of its classes) for a group of hospitals.
struct DataTask {
  std::string dataset;       // as data.dataset, paths resolved
  std::vector<int> classes;  // original labels kept, in order; empty = all
  int64_t train_samples = 0;  // 0 = all
  std::vector<int> class_counts;  // the first n_c training samples of each kept class; empty = all
  int hospitals = 1;
  int line = 0;
};

struct DataSection {
  std::string dataset;
  data::PartitionScheme partition_scheme = data::PartitionScheme::Iid;
  double beta = 0.5;
  int classes_per_hospital = 2;
  int64_t min_samples = 10;
  std::vector<std::vector<int>> partition_counts;  // counts: a row per hospital, a column per class
  double split_train = 0.7, split_val = 0.1, split_test = 0.2;
  int split_folds = 0, split_fold = 1;  // K-fold cross-validation: fold k of K is the test split
  int64_t synthetic_train = 2000, synthetic_test = 500;
  int synthetic_classes = 10, synthetic_channels = 1, synthetic_height = 28, synthetic_width = 28;
  double synthetic_noise = 1.0;
  std::optional<int64_t> samples_per_hospital;  // timing-only: instead of a partition
  double server_share = 0;                      // of the pool, held at the server
  std::vector<DataTask> tasks;                  // empty: data.dataset for everyone
  std::vector<int> label_map;                   // data.dataset's class i becomes label_map[i]; empty: as is
  std::optional<int> resize;
  struct SiteShift {  // data.site_shift: each hospital's own image transformation (data/site_shift.hpp)
    double strength = 0;  // 0: off
    bool intensity = true, gamma = true, blur = true, noise = true, geometry = true, colour = true;
  } site_shift;
  AugmentSettings augment;  // data.augment: random flips, rotations, shifts, zooms of training batches
};

}  // namespace fedgrid

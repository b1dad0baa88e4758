#pragma once
// Partitioners: which training-pool samples each hospital holds, then each hospital's
// stratified train/val/test split. Index lists only; deterministic given the seed.
#include <cstdint>
#include <vector>

#include "data/dataset.hpp"
#include "data/partition_scheme.hpp"

namespace fedgrid::data {

struct PartitionOptions {
  PartitionScheme scheme = PartitionScheme::Iid;
  double beta = 0.5;           // dirichlet concentration
  int classes_per_hospital = 2;  // shards: k classes per hospital
  int64_t min_samples = 10;      // dirichlet: redraw until every hospital has this many
  uint64_t seed = 1;
  std::vector<std::vector<int64_t>> counts;  // counts: counts[h][c] samples of class c for hospital h
};

// Returns one index list per hospital (sorted ascending), disjoint, covering the pool
// (shards: every sample of the classes dealt; balanced: an equal count of every class per
// hospital, the remainder dealt to no one; counts: each hospital's counts, a class's samples
// beyond its column's total dealt to no one). Throws std::invalid_argument on impossible
// requests (more hospitals than samples, k > classes, ...), message naming the option.
std::vector<Indices> partition(const std::vector<int64_t>& labels, int num_classes,
                               int hospitals, const PartitionOptions& options);

struct SplitFractions {
  double train = 0.7, val = 0.1, test = 0.2;
};

struct HospitalSplit {
  Indices train, val, test;
};

// K-fold cross-validation: within each class the hospital's samples are shuffled (from `seed`
// alone, so every fold sees the same deal) and dealt round robin into `folds` folds; fold `fold`
// (1-based) is the test split, the first round(n_rest * val) of the rest validation, the
// remainder training.
HospitalSplit split_folds(const Indices& held, const std::vector<int64_t>& labels, int folds, int fold, double val,
                          uint64_t seed);

// Stratified: within each class the hospital's samples are shuffled and cut by the
// fractions (rounding so that every sample lands in exactly one split).
HospitalSplit split_stratified(const Indices& held, const std::vector<int64_t>& labels,
                               const SplitFractions& fractions, uint64_t seed);

}  // namespace fedgrid::data

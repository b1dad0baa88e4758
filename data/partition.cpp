// Partitioners over index lists. Every random choice comes from data::Rng streams derived
// with mix_seed, so a (labels, options) pair always yields the same hospitals everywhere.
#include "data/partition.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>

#include "data/rng.hpp"

namespace fedgrid::data {
namespace {

// Distinct tags so the schemes never share a stream even with equal seeds.
constexpr uint64_t kIidTag = 0x11D;
constexpr uint64_t kDirichletTag = 0xD121;
constexpr uint64_t kShardsTag = 0x5A4D;
constexpr uint64_t kBalancedTag = 0xBA1;
constexpr uint64_t kCountsTag = 0xC0C;
constexpr int kDirichletAttempts = 1000;

[[noreturn]] void fail(const std::string& key, const std::string& why) {
  throw std::invalid_argument(key + ": " + why);
}

void validate_pool(const std::vector<int64_t>& labels, int num_classes, int hospitals) {
  if (num_classes < 1) fail("num_classes", "must be positive, got " + std::to_string(num_classes));
  if (hospitals < 1) fail("hospitals", "must be at least 1, got " + std::to_string(hospitals));
  if (int64_t(hospitals) > int64_t(labels.size()))
    fail("hospitals", std::to_string(hospitals) + " hospitals but the pool holds only " +
                          std::to_string(labels.size()) + " samples");
  for (size_t i = 0; i < labels.size(); ++i)
    if (labels[i] < 0 || labels[i] >= num_classes)
      fail("labels", "label " + std::to_string(labels[i]) + " at index " + std::to_string(i) +
                         " is outside [0, " + std::to_string(num_classes) + ")");
}

// Class-wise index lists, each ascending.
std::vector<Indices> group_by_class(const std::vector<int64_t>& labels, int num_classes) {
  std::vector<Indices> by_class(static_cast<size_t>(num_classes));
  for (size_t i = 0; i < labels.size(); ++i) by_class[size_t(labels[i])].push_back(int64_t(i));
  return by_class;
}

std::vector<Indices> iid(int64_t pool, int hospitals, uint64_t seed) {
  Indices all(static_cast<size_t>(pool));
  std::iota(all.begin(), all.end(), int64_t(0));
  Rng rng(mix_seed(seed, kIidTag));
  rng.shuffle(all);
  std::vector<Indices> out(static_cast<size_t>(hospitals));
  for (int h = 0; h < hospitals; ++h) {
    const int64_t begin = pool * h / hospitals, end = pool * (h + 1) / hospitals;
    out[size_t(h)].assign(all.begin() + begin, all.begin() + end);
  }
  return out;
}

// Per-class hospital counts from one Dirichlet draw; cumulative rounding makes each class's
// counts sum exactly to its size.
std::vector<std::vector<int64_t>> dirichlet_counts(const std::vector<Indices>& by_class,
                                                   int hospitals, double beta, Rng& rng) {
  std::vector<std::vector<int64_t>> counts(by_class.size());
  for (size_t c = 0; c < by_class.size(); ++c) {
    const int64_t n = int64_t(by_class[c].size());
    std::vector<double> p = rng.dirichlet(beta, size_t(hospitals));
    if (!std::isfinite(p[0])) {
      // Tiny beta can underflow every gamma draw to 0 (0/0 proportions); the distribution's
      // limit there is one-hot, so give the whole class to one random hospital.
      std::fill(p.begin(), p.end(), 0.0);
      p[size_t(rng.below(uint64_t(hospitals)))] = 1.0;
    }
    double cumulative = 0;
    int64_t start = 0;
    counts[c].resize(size_t(hospitals));
    for (int h = 0; h < hospitals; ++h) {
      cumulative += p[size_t(h)];
      int64_t end = h + 1 == hospitals ? n : std::llround(cumulative * double(n));
      end = std::clamp(end, start, n);
      counts[c][size_t(h)] = end - start;
      start = end;
    }
  }
  return counts;
}

std::vector<Indices> dirichlet(const std::vector<int64_t>& labels, int num_classes,
                               int hospitals, const PartitionOptions& o) {
  if (!(o.beta > 0) || !std::isfinite(o.beta))
    fail("partition.beta", "must be a positive number, got " + std::to_string(o.beta));
  if (o.min_samples < 0)
    fail("partition.min_samples", "must be >= 0, got " + std::to_string(o.min_samples));
  // Never ask more than half the fair share: a Dirichlet draw almost never deals exactly equal parts.
  const int64_t floor = std::min(o.min_samples, int64_t(labels.size()) / hospitals / 2);
  std::vector<Indices> by_class = group_by_class(labels, num_classes);

  for (int attempt = 0; attempt < kDirichletAttempts; ++attempt) {
    // Proportions first, shuffling only once a draw is accepted: rejected draws stay cheap.
    Rng draw(mix_seed(o.seed, kDirichletTag, uint64_t(attempt)));
    const auto counts = dirichlet_counts(by_class, hospitals, o.beta, draw);
    std::vector<int64_t> totals(size_t(hospitals), 0);
    for (const auto& per_class : counts)
      for (int h = 0; h < hospitals; ++h) totals[size_t(h)] += per_class[size_t(h)];
    if (*std::min_element(totals.begin(), totals.end()) < floor) continue;

    Rng shuffler(mix_seed(o.seed, kDirichletTag, uint64_t(attempt), 1));
    std::vector<Indices> out(static_cast<size_t>(hospitals));
    for (size_t c = 0; c < by_class.size(); ++c) {
      shuffler.shuffle(by_class[c]);
      auto it = by_class[c].begin();
      for (int h = 0; h < hospitals; ++h) {
        const int64_t take = counts[c][size_t(h)];
        out[size_t(h)].insert(out[size_t(h)].end(), it, it + take);
        it += take;
      }
    }
    return out;
  }
  fail("partition.min_samples",
       "no Dirichlet draw (partition.beta=" + std::to_string(o.beta) + ") in " +
           std::to_string(kDirichletAttempts) + " attempts gave all " +
           std::to_string(hospitals) + " hospitals at least " + std::to_string(floor) +
           " samples; raise partition.beta or lower partition.min_samples");
}

// McMahan et al. (2017): sort by label, cut into equal shards, deal k shards per hospital.
std::vector<Indices> shards(const std::vector<int64_t>& labels, int num_classes, int hospitals,
                            const PartitionOptions& o) {
  const int k = o.classes_per_hospital;
  if (k < 1 || k > num_classes)
    fail("partition.classes_per_hospital",
         "must be in [1, " + std::to_string(num_classes) + "], got " + std::to_string(k));
  const int64_t pool = int64_t(labels.size());
  const int64_t shard_count = int64_t(hospitals) * k;
  if (shard_count > pool)
    fail("partition.classes_per_hospital",
         std::to_string(hospitals) + " hospitals x " + std::to_string(k) + " shards exceed the " +
             std::to_string(pool) + " samples in the pool");

  Indices sorted;
  sorted.reserve(size_t(pool));
  for (const Indices& cls : group_by_class(labels, num_classes))
    sorted.insert(sorted.end(), cls.begin(), cls.end());

  Indices shard_order(static_cast<size_t>(shard_count));
  std::iota(shard_order.begin(), shard_order.end(), int64_t(0));
  Rng rng(mix_seed(o.seed, kShardsTag));
  rng.shuffle(shard_order);

  std::vector<Indices> out(static_cast<size_t>(hospitals));
  for (int64_t slot = 0; slot < shard_count; ++slot) {
    const int64_t shard = shard_order[size_t(slot)];
    // Near-equal shards (sizes differ by at most one) so no sample is left undealt.
    const int64_t begin = pool * shard / shard_count, end = pool * (shard + 1) / shard_count;
    Indices& hospital = out[size_t(slot / k)];
    hospital.insert(hospital.end(), sorted.begin() + begin, sorted.begin() + end);
  }
  return out;
}

// UniFed's "moderately non-IID": every hospital holds the same number of samples of every
// class present in the pool, min over classes of floor(class size / hospitals); the rest of
// the pool is dealt to no one.
std::vector<Indices> balanced(const std::vector<int64_t>& labels, int num_classes, int hospitals, uint64_t seed) {
  std::vector<Indices> by_class = group_by_class(labels, num_classes);
  int64_t per_class = std::numeric_limits<int64_t>::max();
  for (const Indices& c : by_class)
    if (!c.empty()) per_class = std::min(per_class, int64_t(c.size()) / hospitals);
  if (per_class == 0)
    fail("partition.scheme", "balanced: a class has fewer samples than there are hospitals (" +
                                 std::to_string(hospitals) + ")");
  Rng rng(mix_seed(seed, kBalancedTag));
  std::vector<Indices> out(static_cast<size_t>(hospitals));
  for (Indices& c : by_class) {
    if (c.empty()) continue;
    rng.shuffle(c);
    for (int h = 0; h < hospitals; ++h)
      out[size_t(h)].insert(out[size_t(h)].end(), c.begin() + h * per_class, c.begin() + (h + 1) * per_class);
  }
  return out;
}

// Given counts (FedSKD's FedASD sites, Weng et al. 2025, Table I: each site's subjects of each
// class): class c's samples, shuffled from the seed, are dealt to hospitals 0, 1, ... in turn,
// counts[h][c] each; what no row asks for is dealt to no one.
std::vector<Indices> given_counts(const std::vector<int64_t>& labels, int num_classes, int hospitals,
                                  const PartitionOptions& o) {
  const auto& counts = o.counts;
  if (int64_t(counts.size()) != hospitals)
    fail("partition.counts", "has " + std::to_string(counts.size()) + " rows; there are " + std::to_string(hospitals) +
                                 " hospitals (a row per hospital)");
  for (size_t h = 0; h < counts.size(); ++h) {
    if (int64_t(counts[h].size()) != num_classes)
      fail("partition.counts", "row " + std::to_string(h) + " has " + std::to_string(counts[h].size()) +
                                   " counts; there are " + std::to_string(num_classes) + " classes (a column per class)");
    for (size_t c = 0; c < counts[h].size(); ++c)
      if (counts[h][c] < 0)
        fail("partition.counts", "row " + std::to_string(h) + ", class " + std::to_string(c) + ": " +
                                     std::to_string(counts[h][c]) + " is negative");
  }
  std::vector<Indices> by_class = group_by_class(labels, num_classes);
  for (int c = 0; c < num_classes; ++c) {
    int64_t asked = 0;
    for (const auto& row : counts) asked += row[size_t(c)];
    if (asked > int64_t(by_class[size_t(c)].size()))
      fail("partition.counts", "class " + std::to_string(c) + ": the rows ask for " + std::to_string(asked) +
                                   " samples; the pool holds " + std::to_string(by_class[size_t(c)].size()));
  }
  Rng rng(mix_seed(o.seed, kCountsTag));
  std::vector<Indices> out(static_cast<size_t>(hospitals));
  for (size_t c = 0; c < by_class.size(); ++c) {
    rng.shuffle(by_class[c]);
    auto it = by_class[c].begin();
    for (int h = 0; h < hospitals; ++h) {
      const int64_t take = counts[size_t(h)][c];
      out[size_t(h)].insert(out[size_t(h)].end(), it, it + take);
      it += take;
    }
  }
  return out;
}

}  // namespace

std::vector<Indices> partition(const std::vector<int64_t>& labels, int num_classes,
                               int hospitals, const PartitionOptions& options) {
  validate_pool(labels, num_classes, hospitals);
  std::vector<Indices> out;
  switch (options.scheme) {
    case PartitionScheme::Iid: out = iid(int64_t(labels.size()), hospitals, options.seed); break;
    case PartitionScheme::Dirichlet: out = dirichlet(labels, num_classes, hospitals, options); break;
    case PartitionScheme::Shards: out = shards(labels, num_classes, hospitals, options); break;
    case PartitionScheme::Balanced: out = balanced(labels, num_classes, hospitals, options.seed); break;
    case PartitionScheme::Counts: out = given_counts(labels, num_classes, hospitals, options); break;
  }
  for (Indices& list : out) std::sort(list.begin(), list.end());
  return out;
}

namespace {

// The hospital's samples class by class, each class sorted (the shuffle must not depend on
// held's order) and shuffled from (seed, label).
std::map<int64_t, Indices> shuffled_by_class(const Indices& held, const std::vector<int64_t>& labels, uint64_t seed,
                                             const char* caller) {
  std::map<int64_t, Indices> by_class;
  for (int64_t i : held) {
    if (i < 0 || i >= int64_t(labels.size()))
      throw std::out_of_range(std::string(caller) + ": index " + std::to_string(i) + " outside the label vector");
    by_class[labels[size_t(i)]].push_back(i);
  }
  for (auto& [label, members] : by_class) {
    std::sort(members.begin(), members.end());
    Rng rng(mix_seed(seed, uint64_t(label)));
    rng.shuffle(members);
  }
  return by_class;
}

void sort_splits(HospitalSplit& out) {
  for (Indices* list : {&out.train, &out.val, &out.test}) std::sort(list->begin(), list->end());
}

}  // namespace

HospitalSplit split_stratified(const Indices& held, const std::vector<int64_t>& labels,
                               const SplitFractions& fractions, uint64_t seed) {
  const double f_train = fractions.train, f_val = fractions.val, f_test = fractions.test;
  if (!(f_train >= 0 && f_val >= 0 && f_test >= 0) ||
      !(std::abs(f_train + f_val + f_test - 1.0) <= 1e-6))
    fail("data.split", "fractions must be >= 0 and sum to 1, got train=" +
                           std::to_string(f_train) + " val=" + std::to_string(f_val) +
                           " test=" + std::to_string(f_test));

  HospitalSplit out;
  for (const auto& [label, members] : shuffled_by_class(held, labels, seed, "split_stratified")) {
    const int64_t n = int64_t(members.size());
    const int64_t n_train = std::min(n, int64_t(std::llround(double(n) * f_train)));
    const int64_t n_val = std::min(n - n_train, int64_t(std::llround(double(n) * f_val)));
    auto it = members.begin();
    out.train.insert(out.train.end(), it, it + n_train);
    out.val.insert(out.val.end(), it + n_train, it + n_train + n_val);
    out.test.insert(out.test.end(), it + n_train + n_val, members.end());
  }
  sort_splits(out);
  return out;
}

HospitalSplit split_folds(const Indices& held, const std::vector<int64_t>& labels, int folds, int fold, double val,
                          uint64_t seed) {
  if (folds < 2 || fold < 1 || fold > folds || !(val >= 0 && val < 1))
    fail("data.split.folds", "needs folds >= 2, fold in 1..folds and val in [0, 1), got folds=" +
                                 std::to_string(folds) + " fold=" + std::to_string(fold) + " val=" + std::to_string(val));
  HospitalSplit out;
  for (const auto& [label, members] : shuffled_by_class(held, labels, seed, "split_folds")) {
    Indices rest;
    for (size_t i = 0; i < members.size(); ++i)
      (int(i % size_t(folds)) == fold - 1 ? out.test : rest).push_back(members[i]);
    const int64_t n_val = std::min(int64_t(rest.size()), int64_t(std::llround(double(rest.size()) * val)));
    out.val.insert(out.val.end(), rest.begin(), rest.begin() + n_val);
    out.train.insert(out.train.end(), rest.begin() + n_val, rest.end());
  }
  sort_splits(out);
  return out;
}

}  // namespace fedgrid::data

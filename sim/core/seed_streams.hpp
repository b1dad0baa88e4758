#pragma once
// The purposes random streams are derived for: mix_seed(scenario seed, purpose, ...). Kept in
// one place so the bare-LibTorch benchmark can reproduce fedgrid's partition and initial model.
#include <cstdint>

namespace fedgrid::seed_streams {

enum : uint64_t {
  kTrain = 1,       // (hospital + 1, round): shuffling of a training job
  kSelect = 2,      // (round): client sampling
  kOrder = 3,       // (round): random relay order
  kModelInit = 11,  // initial weights
  kPartition = 12,  // dealing the training pool to hospitals
  kSplit = 13,      // (hospital): its train/val/test split
  kSynthetic = 14,  // the synthetic dataset
  kServerShare = 15,  // the share of the pool held at the server, and its split
  kReparam = 16,      // (hospital + 1, round): DynamicFL's new branches
  kDistill = 17,      // (round): FedDF's distillation batch order
  kDispatch = 18,     // (draw): the hospital an asynchronous scheduler starts next
  kAsyncTrain = 19,   // (hospital + 1, job): shuffling of an asynchronous job (a hospital may train twice in a round)
  kOffline = 20,      // (hospital + 1, round): faults.offline_probability
  kCrash = 21,        // (hospital + 1, crash number): gaps between crashes, faults.crash_rate_per_hour
  kPopulation = 22,   // (group, figure): platform.hospitals[].vary draws
  kSiteShift = 23,    // (hospital): data.site_shift, that hospital's transformation and noise
  kUnifiedFlGroups = 24,  // UnifiedFL's grouping hash g_e / g_v (one for all hospitals)
};

}  // namespace fedgrid::seed_streams

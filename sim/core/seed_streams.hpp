#pragma once
// The purposes random streams are derived for: mix_seed(scenario seed, stream, ...). The
// simulator's own are here, in one place so that the bare-LibTorch benchmark can reproduce
// fedgrid's partition and initial model. An algorithm declares its own in its own file and lists
// them in its registry entry (AlgorithmInfo::seed_streams, algorithms/registry.hpp).
//
// Two streams of one run must differ, so the ids are split: the simulator's are below
// kAlgorithmStreamsFrom and none of kHeldByAlgorithms (core_stream refuses any other at compile
// time); an algorithm's are from kAlgorithmStreamsFrom up, or one of kHeldByAlgorithms, the ids
// algorithms held before the split, kept so that their outputs stay the same (algorithm_stream
// refuses any other). tests/test_runs.cpp (Registry.SeedStreams...) checks every entry's list.
#include <algorithm>
#include <cstdint>
#include <iterator>

namespace fedgrid::seed_streams {

inline constexpr uint64_t kAlgorithmStreamsFrom = 100;
inline constexpr uint64_t kHeldByAlgorithms[] = {16, 17, 18, 24};

constexpr bool is_algorithm_stream(uint64_t id) {
  return id >= kAlgorithmStreamsFrom ||
         std::find(std::begin(kHeldByAlgorithms), std::end(kHeldByAlgorithms), id) != std::end(kHeldByAlgorithms);
}
// An id of the simulator's own; any other does not compile (a throw in a constant expression).
consteval uint64_t core_stream(uint64_t id) {
  if (id == 0 || is_algorithm_stream(id)) throw "an algorithm's stream id: the simulator's are 1..99 outside kHeldByAlgorithms";
  return id;
}
// An id for an algorithm's own stream; any other does not compile.
consteval uint64_t algorithm_stream(uint64_t id) {
  if (!is_algorithm_stream(id)) throw "the simulator's stream id: an algorithm's are kHeldByAlgorithms or from 100 up";
  return id;
}

enum : uint64_t {
  kTrain = core_stream(1),         // (hospital + 1, round): shuffling of a training job
  kSelect = core_stream(2),        // (round): client sampling
  kOrder = core_stream(3),         // (round): random relay order
  kModelInit = core_stream(11),    // initial weights
  kPartition = core_stream(12),    // dealing the training pool to hospitals
  kSplit = core_stream(13),        // (hospital): its train/val/test split
  kSynthetic = core_stream(14),    // the synthetic dataset
  kServerShare = core_stream(15),  // the share of the pool held at the server, and its split
  kAsyncTrain = core_stream(19),   // (hospital + 1, job): shuffling of an asynchronous job (a hospital may train twice in a round)
  kOffline = core_stream(20),      // (hospital + 1, round): faults.offline_probability
  kCrash = core_stream(21),        // (hospital + 1, crash number): gaps between crashes, faults.crash_rate_per_hour
  kPopulation = core_stream(22),   // (group, figure): platform.hospitals[].vary draws
  kSiteShift = core_stream(23),    // (hospital): data.site_shift, that hospital's transformation and noise
  kAugment = core_stream(25),      // (job seed; epoch, sample): data.augment, one sample's transform in one epoch
  kCompress = core_stream(26),     // (sender + 1, receiver + 1; transfer number): compression's stochastic rounding
};

}  // namespace fedgrid::seed_streams

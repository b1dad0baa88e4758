#pragma once
// What the asynchronous algorithms share (fedasync.cpp, fedbuff.cpp): the staleness functions
// of Xie et al. 2019 (FedAsync, Sec. 5.2), the scheduler that keeps hospitals training, and
// their common keys.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "sim/core/mode_names.hpp"
#include "sim/core/seed_streams.hpp"
#include "sim/engine/arrivals.hpp"
#include "sim/engine/federation.hpp"
#include "sim/scenario/key_set.hpp"

namespace fedgrid::algorithms {

// FedAsync's s(d) of staleness d (algorithm.staleness): constant 1; polynomial (d + 1)^-a;
// hinge 1 if d <= b, else 1 / (a (d - b) + 1).
enum class StalenessFunction { Constant, Polynomial, Hinge };
inline constexpr ModeName<StalenessFunction> kStalenessFunctions[] = {{StalenessFunction::Constant, "constant"},
                                                                      {StalenessFunction::Polynomial, "polynomial"},
                                                                      {StalenessFunction::Hinge, "hinge"}};
constexpr std::span<const ModeName<StalenessFunction>> modes_of(StalenessFunction) { return kStalenessFunctions; }

struct AsyncSettings {
  int concurrency = 0;  // hospitals training at once (0: every hospital)
  StalenessFunction staleness = StalenessFunction::Polynomial;
  double staleness_a = 0.5, staleness_b = 4;
};
const KeySet<AsyncSettings>& async_keys();

// s(d) of staleness d under `function`, with its a and b (above).
double staleness_weight(StalenessFunction function, double d, double a, double b);

// The scheduler both papers leave to the system (FedAsync's "scheduler triggers workers",
// FedBuff's uniform client sampling): `concurrency` hospitals train at once. The first ones
// are drawn uniformly from the seed; whenever the server has taken an update, the next
// hospital is drawn uniformly among the idle ones (the one just taken included). With every
// hospital training at once, each starts again as soon as its update has been taken.
// Why neither can be checkpointed (AlgorithmInfo::cannot_checkpoint).
std::string asynchronous_cannot_checkpoint(const Scenario& scenario);

// The scheduler's draws: the stream of its dispatch draws (mix_seed's id, the draw's number).
inline constexpr uint64_t kDispatchStream = seed_streams::algorithm_stream(18);

class AsyncScheduler {
 public:
  AsyncScheduler(Federation& fed, int concurrency);
  std::vector<Hospital*> first();
  Hospital& next(const std::vector<Hospital*>& idle);

 private:
  Federation& fed_;
  size_t concurrency_;
  uint64_t draws_ = 0;  // the draw's number in the seed's dispatch stream
};

}  // namespace fedgrid::algorithms

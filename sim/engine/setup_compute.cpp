// The real training's side of a run: weights, device, executor (run_setup.hpp).
#include "sim/engine/run_setup.hpp"

#include <algorithm>
#include <thread>

#include "data/rng.hpp"
#include "sim/core/seed_streams.hpp"
#include "sim/jobs/compute.hpp"
#include "sim/jobs/mpi/job_exchange.hpp"
#include "sim/jobs/torch_module.hpp"
#include "sim/engine/world.hpp"

namespace fedgrid::run_setup {
namespace sg4 = simgrid::s4u;
using namespace seed_streams;

// The real training's side of a run: initial weights, device, the executor and its queue.
void prepare_compute(World& world, const Scenario& s, JobExchange* exchange, bool set_up_only) {
  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  // `fedgrid validate` (set_up_only) builds no network, so it loads no LibTorch: the models'
  // shapes were checked by set_up_models, torch-free (models::model_cost).
  if (s.training.timing_only || set_up_only) {
    world.perf.workers = 0;  // nothing to compute for real
  } else {
    load_torch();
    world.initial_weights = initial_weights(world.spec, mix_seed(s.seed, kModelInit));
    // Every tier model's initial weights too, here: torch's generator is global, so draws
    // happen on this thread before any job runs.
    auto draw = [&](const models::ModelSpec& spec) {
      if (spec == world.spec) return;
      auto& slot = world.other_initial_weights[models::spec_label(spec)];
      if (slot.empty()) slot = initial_weights(spec, mix_seed(s.seed, kModelInit));
    };
    for (const auto& [tier, spec] : world.tier_specs) draw(spec);
    for (const auto& spec : world.hospital_specs) draw(spec);
    world.device = resolve_device(s.training.device);
    configure_determinism(world.device, s.training.deterministic);
    world.perf.workers = s.training.workers > 0 ? s.training.workers : cores;
  }
  // The intra-op thread count sets LibTorch's reduction order, so it is the scenario's own
  // (default 1), never cores / workers: any worker count and core count give the same bytes.
  world.perf.threads_per_worker = s.training.threads_per_worker;
  if (world.perf.workers > 0) cache_large_blocks();
  world.executor = std::make_unique<Executor>(world.perf.workers,
                                              [t = world.perf.threads_per_worker] { init_torch_worker(t); });
  world.training = std::make_unique<TrainingQueue>(*world.executor, world.perf.training_busy,
                                                   fuse_limit_of(s.training.fuse, world.device), exchange);
}

}  // namespace fedgrid::run_setup

#pragma once
// How run.cpp sets a run up, by what it sets up: SimGrid's engine (simgrid_engine.cpp), the
// platform and its hospitals (setup_platform.cpp), the models' shapes (setup_models.cpp) and
// the real training's side (setup_compute.cpp). Internal to the engine: run.hpp is the API.
#include <simgrid/s4u.hpp>

#include <memory>
#include <string>
#include <vector>

#include "data/dataset.hpp"
#include "models/model_spec.hpp"
#include "platforms/platform_error.hpp"
#include "platforms/tier_catalog.hpp"
#include "platforms/topology.hpp"
#include "sim/core/input_error.hpp"
#include "sim/jobs/calibration/compute_profile.hpp"
#include "sim/scenario/scenario.hpp"

namespace fedgrid {

struct World;
class JobExchange;

namespace run_setup {

// ---- SimGrid's engine (simgrid_engine.cpp)
// SimGrid's engine, with fedgrid's log threshold, the user's --cfg arguments (`simgrid_args`,
// RunOptions) and the network model's configuration (configure_engine).
std::unique_ptr<simgrid::s4u::Engine> start_engine(const Scenario& s, const std::vector<std::string>& simgrid_args);
void configure_engine(simgrid::s4u::Engine& engine, const Scenario& s);
void fit_actor_stacks(simgrid::s4u::Engine& engine, int hospitals);

// ---- the platform (setup_platform.cpp)
// A platform file's error as the scenario's bad input (exit code 2, file, line, key).
template <class F>
auto platform_input(F&& f) {
  try {
    return f();
  } catch (const platforms::PlatformError& e) {
    throw InputError(e.file, e.line, e.key, e.message);
  }
}
platforms::XmlMapping xml_mapping(const Scenario& s);
void check_server_tier(const Scenario& s, const platforms::TierCatalog& catalog);
void check_fault_traces(const Scenario& s, const std::vector<platforms::MachineSpec>& machines);
std::vector<platforms::MachineSpec> load_hospitals(World& world);
void build_star(World& world, const std::vector<platforms::MachineSpec>& machines);
// The generated star's server: its tier's figures, with the scenario's platform.server.*
// overrides (speed, links, latency, profiled device and speed factor).
platforms::MachineSpec server_machine(const Scenario& s, const platforms::TierCatalog& catalog);
ComputeProfile load_profile(const Scenario& s, const platforms::PlatformHosts& platform);

// ---- the models (setup_models.cpp)
models::ModelSpec model_spec_for(const Scenario& s, const data::ImageShape& shape, int classes);
void set_up_models(World& world);

// ---- the real training's side (setup_compute.cpp): LibTorch loaded, initial weights drawn, the
// device and the executor; `set_up_only` (fedgrid validate) and timing-only runs compute nothing.
void prepare_compute(World& world, const Scenario& s, JobExchange* exchange, bool set_up_only);

}  // namespace run_setup
}  // namespace fedgrid

#pragma once
// Wires one run: engine, platform, data, executor, recorder, the algorithm in the server's
// actor. main() only parses the command line and calls these.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "models/model_spec.hpp"
#include "sim/engine/observer.hpp"
#include "sim/scenario/scenario.hpp"

namespace fedgrid {

class Federation;
class JobExchange;  // sim/jobs/mpi/job_exchange.hpp

// Checks what needs more than the key table: tiers exist, the model fits the data, the data
// files are there. Throws InputError. Does not load data or start a simulation. (What the
// algorithm needs is checked by algorithms::check_algorithm, algorithms/registry.hpp.)
void check_scenario(const Scenario& scenario);

// What is known of a run once it is set up and before anything is simulated: the scenario, the
// hospitals with their tiers, every model's shape, the server's share of the data. An
// algorithm's requirements (algorithms::AlgorithmInfo::check) are checked against it.
struct SetupView {
  const Scenario& scenario;
  struct HospitalFacts {
    std::string name, tier;
    models::ModelSpec model;  // the model it trains where each keeps its own (Federation::hospital_spec)
  };
  std::vector<HospitalFacts> hospitals;  // by id
  std::vector<std::string> tiers;        // present among hospitals, catalog order (Federation::tiers)
  models::ModelSpec model;               // the global (server's) model, model.arch
  std::map<std::string, models::ModelSpec> tier_models;  // each tier's: model.<tier>, else the global (Federation::tier_spec)
  size_t server_train_samples = 0, server_val_samples = 0;  // the server's share (data.server_share)
};

struct RunOptions {
  bool write_outputs = true;
  bool progress = false;
  std::vector<Observer*> observers;        // extra observers (tests)
  std::vector<std::string> simgrid_args;   // extra --cfg=... / --log=... for SimGrid
  std::string resume_from;                 // a checkpoint.bin to continue from (fedgrid resume)
  bool set_up_only = false;                // load everything, build the federation, run nothing
  // The algorithm's own columns after the standard ones of rounds.csv and hospitals.csv,
  // filled through Federation::note (algorithms::run_algorithm sets them from AlgorithmInfo).
  std::vector<std::string> round_columns, hospital_columns;
  // Checked once the federation is built (every model's shape known), before anything runs and
  // in set_up_only runs too: the algorithm's requirements (algorithms::run_algorithm sets it).
  // Throws InputError.
  std::function<void(const SetupView&)> check;
  // training.executor: mpi: this rank's share of the launch (sim/cli/mpi_run.hpp opens it). The
  // ranks agree on their set-up before round 1, and training jobs are spread over them.
  JobExchange* exchange = nullptr;
};

// What `fedgrid validate` checks: check_scenario, then everything run_scenario loads before
// the first simulated event (SimGrid's engine and the platform as it loads it, data files,
// compute profile, surrogate, fault traces, models' shapes, the federation with its fault
// plan and link traces), then `check` (RunOptions::check), and nothing runs. The data files
// are read through, every byte, but no tensor is built and no network made: LibTorch is not
// loaded (sim/jobs/torch_module.hpp) unless training.device: cuda or precision: bf16 asks
// what the machine has. Throws InputError as run_scenario would. One per process, as
// run_scenario.
void set_up_only(const Scenario& scenario, const std::function<void(const SetupView&)>& check = {});

// `fedgrid platform`: the star platform the scenario builds (tiers, groups or roster, backbone)
// as SimGrid XML that platform.xml runs back into the same outputs. Throws InputError for a
// scenario on an XML platform already, or with timing.cohorts.
std::string export_platform(const Scenario& scenario);

// Runs `protocol` (an algorithm's run(), or a test's own steps) as the server actor's code.
// SimGrid allows one engine per process: call this once per process.
RunSummary run_scenario(const Scenario& scenario, const RunOptions& options,
                        const std::function<void(Federation&)>& protocol);

}  // namespace fedgrid

#pragma once
// Wires one run: engine, platform, data, executor, recorder, the algorithm in the server's
// actor. main() only parses the command line and calls these.
#include <functional>
#include <string>
#include <vector>

#include "sim/engine/observer.hpp"
#include "sim/scenario/scenario.hpp"

namespace fedgrid {

class Federation;

// Checks what needs more than the key table: tiers exist, the model fits the data, the data
// files are there. Throws InputError. Does not load data or start a simulation. (What the
// algorithm needs is checked by algorithms::check_algorithm, algorithms/registry.hpp.)
void check_scenario(const Scenario& scenario);

struct RunOptions {
  bool write_outputs = true;
  bool progress = false;
  std::vector<Observer*> observers;        // extra observers (tests)
  std::vector<std::string> simgrid_args;   // extra --cfg=... / --log=... for SimGrid
  std::string resume_from;                 // a checkpoint.bin to continue from (fedgrid resume)
};

// Runs `protocol` (an algorithm's run(), or a test's own steps) as the server actor's code.
// SimGrid allows one engine per process: call this once per process.
RunSummary run_scenario(const Scenario& scenario, const RunOptions& options,
                        const std::function<void(Federation&)>& protocol);

}  // namespace fedgrid

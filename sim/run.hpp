#pragma once
// Wires one run: engine, platform, data, executor, recorder, the algorithm in the server's
// actor. main() only parses the command line and calls these.
#include <functional>
#include <string>
#include <vector>

#include "sim/observer.hpp"
#include "sim/scenario.hpp"

namespace fedgrid {

class Federation;

// Checks what needs more than the key table: tiers exist, the algorithm exists, the model
// fits the data. Throws InputError. Does not load data or start a simulation.
void check_scenario(const Scenario& scenario);

struct RunOptions {
  bool write_outputs = true;
  bool progress = false;
  std::vector<Observer*> observers;        // extra observers (tests)
  std::vector<std::string> simgrid_args;   // extra --cfg=... / --log=... for SimGrid
};

// Runs `protocol` (or the scenario's algorithm when empty) as the server actor's code.
// SimGrid allows one engine per process: call this once per process.
RunSummary run_scenario(const Scenario& scenario, const RunOptions& options = {},
                        const std::function<void(Federation&)>& protocol = {});

}  // namespace fedgrid

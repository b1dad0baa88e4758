#pragma once
// Algorithms by name. A new algorithm is one file (or folder) that defines its entries, plus
// one line in registry.cpp; its keys are declared in its own file (sim/scenario/key_set.hpp).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/engine/run.hpp"
#include "sim/scenario/key_table.hpp"
#include "sim/scenario/key_transfer.hpp"

namespace fedgrid {
class Federation;
}

namespace fedgrid::algorithms {

class Algorithm {
 public:
  virtual ~Algorithm() = default;
  virtual void run(Federation& fed) = 0;
};

// One of an algorithm's own columns of rounds.csv or hospitals.csv (a text it notes with
// Federation::note): its name and what it holds, for `fedgrid list metrics`.
struct AlgorithmColumn {
  std::string name, doc;
};

struct AlgorithmInfo {
  std::string name, description;
  std::function<std::unique_ptr<Algorithm>()> make;
  // Which models the scenario may give: one for all (model.arch), one per tier (model.<tier>),
  // or also one per hospital group (platform.hospitals[].model).
  enum class Models { Shared, PerTier, PerHospital } models = Models::Shared;
  bool counts_epochs = false;  // sizes local work in epochs itself (rejects training.local_steps)
  // Its own algorithm.* keys (KeySet::declarations()): a scenario naming it may give these and no
  // other algorithm's; another algorithm may declare the same name differently.
  std::vector<KeyDecl> keys = {};
  // Why the scenario's schedule never stops with nothing under way, so that it cannot be
  // checkpointed (output.checkpoint_every); empty: it can (Federation::first_round).
  std::function<std::string(const Scenario&)> cannot_checkpoint = {};
  // Its own columns after the standard ones of rounds.csv and hospitals.csv (Federation::note);
  // none for most algorithms, whose files keep the standard columns only.
  std::vector<AlgorithmColumn> round_columns = {}, hospital_columns = {};
  // Its requirements of the scenario beyond what its keys' bounds say, checked once the run is
  // set up (every model's shape known) by `fedgrid validate` and `fedgrid run` alike; throws
  // InputError naming the key (Scenario::error_at). run() trusts them. Empty: none.
  std::function<void(const SetupView&)> check = {};
  // Its hospitals train when they are free, with no synchronous round (FedAsync, FedBuff): faults
  // drawn per round (faults.offline_probability, deadline_s, over_selection) cannot act on it.
  bool asynchronous = false;
  // What the engine must know of its schedule to refuse, before anything is simulated, a scenario
  // whose run it could not finish: every refusal is taken at set-up (check_algorithm, then the
  // set-up view), so `fedgrid validate` and `fedgrid run` give the same verdict by construction.
  // The engine keeps a backstop for each (an internal error naming the undeclared trait), and
  // tests/test_validate_parity.cpp runs every entry in every mode to find one.
  struct Traits {
    // Why it cannot run training.mode: timing-only (a job of it needs real numbers, e.g. it stops
    // on a validation loss); empty: it can.
    std::string_view needs_real_training = {};  // a literal
    // Hospitals send to hospitals (Federation::send between two hospitals, post): refused under
    // timing.network: fluid and timing.cohorts, which model the server's links only.
    bool sends_peer_to_peer = false;
    // A hospital trains or sends outside a parallel() step (a relay's visit, an asynchronous
    // job): refused under timing.cohorts, where a cohort acts whole.
    bool acts_alone = false;
    // parallel() over a draw of algorithm.fraction of the hospitals (Federation::select): under
    // timing.cohorts the draw must take everyone; with faults.over_selection it must leave some.
    bool selects_fraction = false;
  };
  Traits traits = {};
  // The ids of the random streams it derives (mix_seed's second argument), declared in its own
  // file; each is an algorithm's id (seed_streams::is_algorithm_stream), so none is the
  // simulator's, and no two of one algorithm are alike (tests/test_runs.cpp checks the entries).
  std::vector<uint64_t> seed_streams = {};
  // The smallest scenario that exercises it: --set overrides of the shared smallest scenario
  // (smallest_scenario) that it needs, e.g. the models or the server's share it requires. The
  // tests that run every algorithm run these.
  std::vector<std::string> smallest = {};
};

const std::vector<AlgorithmInfo>& registry();
const AlgorithmInfo* find_algorithm(const std::string& name);
std::string algorithm_names();
// Puts every algorithm's own keys into the scenario key table; call once before reading a
// scenario (the command line does, and the tests' main).
void install_algorithm_keys();
// Every algorithm's name and own keys, in registry order: what install_algorithm_keys installs,
// for the processes that link no algorithm (key_transfer.hpp).
std::vector<AlgorithmKeys> algorithm_keys();
// The smallest scenario that exercises `algorithm`, as YAML text: three hospitals (one of each
// tier), a small synthetic set, an mlp, two rounds, with its entry's `smallest` overrides.
std::string smallest_scenario(const AlgorithmInfo& algorithm);

// What the scenario's algorithm needs of it: that it exists, the models it may give (shared,
// per tier, per hospital), local_steps only where the algorithm sizes work in mini-batches.
// Throws InputError naming the key.
void check_algorithm(const Scenario& scenario);
// Checks the scenario (check_algorithm, then check_scenario, then the algorithm's own check once
// the run is set up) and runs it with its algorithm.
RunSummary run_algorithm(const Scenario& scenario, const RunOptions& options = {});
// `fedgrid validate`: check_algorithm, then the set-up run_algorithm goes through
// (fedgrid::set_up_only) with the algorithm's own check, and nothing runs. Throws InputError.
void validate_algorithm(const Scenario& scenario);

}  // namespace fedgrid::algorithms

#pragma once
// Checkpoints (output.checkpoint_every) and resume (fedgrid resume): what the algorithm keeps
// from one round to the next (Kept), where a checkpoint goes, what the output files held then
// (a resumed run cuts later rows off), and the checkpoint a resumed run continues from.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/kept_state.hpp"

namespace fedgrid {

struct Scenario;
class RoundLedger;
class EnergyMeter;
class StateReader;
class CompressedLinks;

class Checkpointer {
 public:
  // `links`: compression's references and encoder states, kept beside the algorithm's state
  // (null without compression.*).
  Checkpointer(const Scenario& scenario, RoundLedger& ledger, EnergyMeter& energy, CompressedLinks* links);
  // Set by the run driver; `resume_from` null: a fresh run.
  void set_target(std::string path, std::function<std::vector<int64_t>()> output_sizes,
                  const StateReader* resume_from);
  // The algorithm names its kept state (Federation::first_round); the first round its loop
  // runs: 1, or in a resumed run the round after the checkpoint's, whose state is then loaded.
  int first_round(std::vector<Kept> state);
  int resumed_round() const { return resumed_round_; }
  // At the top of round `round`'s loop: writes the checkpoint due after round - 1.
  // `work_under_way`: some actor still works on a round of its own (never checkpointable).
  void at_round_start(int round, bool work_under_way);
  // An input error for a schedule that never reaches a checkpointable point (no first_round)
  // where the scenario asks for a checkpoint after `round`.
  void check_checkpointable(int round) const;

 private:
  void write(int round, bool work_under_way);
  const Scenario& scenario_;
  RoundLedger& ledger_;
  EnergyMeter& energy_;
  CompressedLinks* links_;
  std::optional<std::vector<Kept>> kept_;
  std::string path_;
  std::function<std::vector<int64_t>()> output_sizes_;
  const StateReader* resume_from_ = nullptr;
  int resumed_round_ = 0;  // the checkpoint's round in a resumed run (not written again)
};

}  // namespace fedgrid

#include "sim/engine/checkpointer.hpp"

#include <simgrid/s4u.hpp>

#include "sim/core/input_error.hpp"
#include "sim/engine/compressed_links.hpp"
#include "sim/engine/crash_points.hpp"
#include "sim/engine/energy_meter.hpp"
#include "sim/engine/round_ledger.hpp"
#include "sim/engine/state_file.hpp"

namespace fedgrid {
namespace sg4 = simgrid::s4u;

Checkpointer::Checkpointer(const Scenario& scenario, RoundLedger& ledger, EnergyMeter& energy, CompressedLinks* links)
    : scenario_(scenario), ledger_(ledger), energy_(energy), links_(links) {}

void Checkpointer::set_target(std::string path, std::function<std::vector<int64_t>()> output_sizes,
                              const StateReader* resume_from) {
  path_ = std::move(path);
  output_sizes_ = std::move(output_sizes);
  resume_from_ = resume_from;
}

int Checkpointer::first_round(std::vector<Kept> state) {
  if (kept_) throw std::logic_error("first_round called twice");
  kept_.emplace(std::move(state));
  if (!resume_from_) return 1;
  const StateReader& in = *resume_from_;
  if (in.text("algorithm") != scenario_.algorithm.name)
    throw InputError(in.path(), 0, "algorithm", "the checkpoint is of algorithm '" + in.text("algorithm") +
                                                    "', the scenario runs '" + scenario_.algorithm.name + "'");
  if (!ledger_.untouched() || sg4::Engine::get_clock() > 0)
    throw std::logic_error("first_round must come before any simulated activity");
  // Nothing runs until the checkpoint's instant; every host then continues from its meter.
  sg4::this_actor::sleep_until(in.real("clock"));
  energy_.restore({in.reals("energy.joules"), in.reals("energy.since")});
  ledger_.restore(in);
  for (const auto& k : *kept_) k.load(in);
  if (links_) links_->load(in);
  resumed_round_ = int(in.integer("round"));
  return resumed_round_ + 1;
}

void Checkpointer::at_round_start(int round, bool work_under_way) {
  const int every = scenario_.output.checkpoint_every;
  if (every > 0 && round > 1 && (round - 1) % every == 0 && round - 1 != resumed_round_)
    write(round - 1, work_under_way);
}

void Checkpointer::write(int round, bool work_under_way) {
  check_checkpointable(round);
  if (!ledger_.can_checkpoint() || work_under_way)
    throw std::logic_error("checkpoint of round " + std::to_string(round) + " while work is under way");
  StateWriter out;
  out.put("algorithm", scenario_.algorithm.name);
  out.put("round", int64_t(round));
  out.put("clock", sg4::Engine::get_clock());
  const auto meters = energy_.readings();
  out.put("energy.joules", meters.joules);
  out.put("energy.since", meters.since);
  ledger_.save(out);
  out.put("outputs.sizes", output_sizes_());
  for (const auto& k : *kept_) k.save(out);
  if (links_) links_->save(out);
  out.save(path_);
  crash_point("checkpoint-written");
}

void Checkpointer::check_checkpointable(int round) const {
  if (!kept_ && scenario_.output.checkpoint_every > 0 && round % scenario_.output.checkpoint_every == 0)
    throw scenario_.error_at("output.checkpoint_every",
                             "algorithm '" + scenario_.algorithm.name +
                                 "' never stops at a point where nothing is under way (a pipelined or asynchronous "
                                 "schedule), so it cannot be checkpointed: remove the key");
}

}  // namespace fedgrid

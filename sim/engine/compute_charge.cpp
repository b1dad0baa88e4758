#include "sim/engine/compute_charge.hpp"
#include "sim/engine/sim_clock.hpp"

#include <simgrid/s4u.hpp>

#include "sim/engine/actor_tags.hpp"
#include "sim/engine/fault_guard.hpp"
#include "sim/engine/node.hpp"
#include "sim/engine/round_ledger.hpp"
#include "sim/engine/world.hpp"

namespace fedgrid {
namespace sg4 = simgrid::s4u;

ComputeCharge::ComputeCharge(const World& world, FaultGuards& guards, RoundLedger& ledger, const ActorTags& tags,
                             RecordActivity record)
    : world_(world), guards_(guards), ledger_(ledger), tags_(tags), record_(std::move(record)) {}

void ComputeCharge::job(Node& where, const Charge& charge, const std::function<void()>& drop_job) {
  const double start = sim_now();
  const double amount_here = amount(where, charge);
  Guard* guard = where.is_server() ? nullptr : guards_.here();
  if (!guard) {
    sg4::this_actor::exec_init(amount_here)->set_host(where.host())->wait();
  } else {
    try {
      guards_.check_cut(*guard);
    } catch (const HospitalLost&) {
      drop_job();
      throw;
    }
    auto exec = sg4::this_actor::exec_init(amount_here)->set_host(where.host());
    exec->start();
    if (const auto left = guards_.wait_cut(*guard, *exec)) {
      const double share = amount_here > 0 ? 1 - *left / amount_here : 0;
      record_({start, sim_now(), where.name(), "compute", "", 0, charge.flops * share, tags_.round()}, &where, nullptr);
      ledger_.round(tags_.round()).stats[size_t(where.id())].compute_s += sim_now() - start;
      guard->seconds += sim_now() - start;
      drop_job();
      throw HospitalLost{};
    }
    guard->seconds += sim_now() - start;
  }
  record_({start, sim_now(), where.name(), where.is_server() ? "server" : "compute", "", 0, charge.flops, tags_.round()},
          &where, nullptr);
}

void ComputeCharge::server(Node& server, double flops) {
  if (flops <= 0) return;
  const double start = sim_now();
  sg4::this_actor::exec_init(flops)->set_host(server.host())->wait();
  record_({start, sim_now(), server.name(), "server", "", 0, flops, tags_.round()}, &server, nullptr);
}

void ComputeCharge::codec(Node& where, double flops, const char* kind) {
  if (flops <= 0) return;
  const double start = sim_now();
  auto exec = sg4::this_actor::exec_init(flops)->set_host(where.host());
  Guard* guard = where.is_server() ? nullptr : guards_.here();
  if (guard) guards_.check_cut(*guard);
  exec->start();
  const auto left = guard ? guards_.wait_cut(*guard, *exec) : std::nullopt;
  if (!guard) exec->wait();
  const double done = left && flops > 0 ? 1 - *left / flops : 1;
  record_({start, sim_now(), where.name(), kind, "", 0, flops * done, tags_.round()}, &where, nullptr);
  if (guard) guard->seconds += sim_now() - start;
  if (left) throw HospitalLost{};
}

double ComputeCharge::amount(const Node& where, const Charge& charge) const {
  if (!world_.profile) return charge.flops;
  const auto& machine =
      where.is_server() ? world_.platform.server_spec : world_.platform.hospital_specs[size_t(where.id())];
  const ComputeProfile& profile = *world_.profile;
  if (machine.profile_device.empty())
    throw world_.scenario.error_at("platform.server.profile_device",
                                   "the server trains under timing.compute: profile, so it needs a profile device");
  double seconds = 0;
  for (const auto& steps : charge.steps) {
    for (const auto& [batch, count] : steps.train_batches)
      seconds += double(count) * profile.train_step_s(machine.profile_device, steps.spec, batch);
    seconds += profile.eval_s(machine.profile_device, steps.spec, steps.eval_samples);
  }
  return seconds / machine.speed_factor * where.host()->get_speed() + charge.unprofiled_flops;
}

}  // namespace fedgrid

// faults.*: its keys; the rules that refuse faults with cohorts, fluid or ns3 are the timing
// section's (they report timing keys).
#include "sim/scenario/sections/parts.hpp"

namespace fedgrid::sections {

void faults_keys(Keys& k) {
  using S = Scenario;
  k.group("faults", "Faults in the simulated world: hospitals offline, crashes, degrading links, deadlines (docs/guide/faults.md)")
      .bind<double>("faults.offline_probability", [](S& s) -> auto& { return s.faults.offline_probability; }, "0",
                    "Probability that a hospital is offline for a whole round (drawn per hospital and round from the seed)",
                    {.min = 0, .max = 1, .max_exclusive = true})
      .bind<std::string>("faults.availability_trace", [](S& s) -> auto& { return s.faults.availability_trace; }, none,
                         "CSV hospital,online_from_s,online_until_s: a listed hospital (name or glob pattern) is online only inside its intervals")
      .bind<std::string>("faults.crash_trace", [](S& s) -> auto& { return s.faults.crash_trace; }, none,
                         "CSV hospital,crash_at_s[,recover_at_s]: the hospital's host goes down at crash_at_s (back at recover_at_s; empty: never)")
      .bind<double>("faults.crash_rate_per_hour", [](S& s) -> auto& { return s.faults.crash_rate_per_hour; }, "0",
                    "Crashes per hospital per simulated hour, at exponential intervals drawn from the seed (at most 3600)",
                    {.min = 0, .max = 3600})
      .bind<double>("faults.recovery_s", [](S& s) -> auto& { return s.faults.recovery_s; }, "0",
                    "Seconds a host stays down after a crash drawn from faults.crash_rate_per_hour (0: back at once, only the job is lost)",
                    {.min = 0})
      .bind<std::string>("faults.link_trace", [](S& s) -> auto& { return s.faults.link_trace; }, none,
                         "CSV hospital,time_s,bandwidth_factor[,latency_s]: from time_s on, the hospital's access links (<name>_up/_down) run at factor x their bandwidth")
      .bind<double>("faults.deadline_s", [](S& s) -> auto& { return s.faults.deadline_s; }, "0",
                    "An update not reported this many seconds after its round began is late and dropped (relays: the visits not done by then) (0: no deadline)",
                    {.min = 0})
      .bind<double>("faults.over_selection", [](S& s) -> auto& { return s.faults.over_selection; }, "0",
                    "Select (1 + this) x the hospitals a round wants and keep the first that report (Bonawitz et al. 2019)",
                    {.min = 0});
}

}  // namespace fedgrid::sections

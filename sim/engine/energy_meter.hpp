#pragma once
// Energy of the federation's hosts, metered by fedgrid itself from the power figures SimGrid's
// energy plugin would read (wattage_per_state "idle:one core busy:all cores busy", wattage_off),
// read here from the hosts' properties; the plugin is not loaded (it warns about every host of
// a user's platform without figures, hosts fedgrid does not use included).
// The plugin's own total is a sum over its update points, which depend on every earlier event;
// a run resumed from a checkpoint has another history, so its sums would differ in the last
// bits. Here each host's joules and the instant they were last brought up to date are plain
// state: saved in a checkpoint and restored, they continue with the same arithmetic.
#include <memory>
#include <vector>

namespace simgrid::s4u {
class Host;
}

namespace fedgrid {

class EnergyMeter {
 public:
  // Meters `hosts` (summed in this order) from now on: every computation started or ended
  // on one, and every switch off or on, brings that host's joules up to date.
  explicit EnergyMeter(const std::vector<simgrid::s4u::Host*>& hosts);
  // Joules consumed by all metered hosts up to `now` (brings each up to date).
  double total_j(double now);
  // A host fedgrid takes down itself (a crash of faults.*, see faults.hpp): it draws its
  // wattage_off until it is back on.
  void set_on(const simgrid::s4u::Host* host, bool on);

  // What a checkpoint keeps: each distinct host's joules and the instant they were brought up to date.
  struct Readings {
    std::vector<double> joules, since;
  };
  Readings readings() const;
  // A resumed run's meters continue from `r` (nothing runs on any host at a checkpoint).
  void restore(const Readings& r);

 private:
  struct Meters;
  std::shared_ptr<Meters> meters_;  // shared with SimGrid's signal callbacks, which outlive us
};

}  // namespace fedgrid

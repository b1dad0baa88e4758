#pragma once
// Hospitals working at once (Federation::parallel): one actor per acting hospital on its host
// (with timing.cohorts a representative acts for its cohort and its members get copies), each
// hospital's work under its fault guard, and faults.over_selection's cut once the K wanted
// have reported: the others are late.
#include <cstddef>
#include <functional>
#include <map>
#include <vector>

namespace fedgrid {

class Hospital;
class Cohorts;
class FaultGuards;
class RoundLedger;
class ActorTags;
struct Guard;

class ParallelRound {
 public:
  using Body = std::function<void(size_t)>;
  using FanOut = std::function<void(size_t from, size_t to)>;
  ParallelRound(Cohorts& cohorts, FaultGuards& guards, RoundLedger& ledger, const ActorTags& tags);
  // faults.over_selection: of the hospitals `round` selected, the first `k` to report count.
  void want(int round, size_t k) { wanted_[round] = k; }
  // Runs body(i) for hospitals[i] in the run's round (which began at `round_started`, for the
  // deadline), joins them, then copies each representative's result to its cohort's members
  // (`copy`) and drops the results of the lost (`drop`).
  void run(const std::vector<Hospital*>& hospitals, double round_started, const Body& body, const FanOut& copy,
           const Body& drop);

 private:
  // Once `wanted` have reported, every hospital still working is late, and cut.
  void cut_the_rest(std::vector<Guard>& guards, const size_t& reported);
  // Of those that reported, the ones past the first `wanted` (by the instant they reported,
  // then by id) are late: their losses are noted and their results dropped.
  void drop_late(const std::vector<Hospital*>& hs, std::vector<Guard>& guards, size_t wanted, const Body& drop);
  void fan_out(const std::vector<Hospital*>& hs, size_t rep, const std::vector<size_t>& members, const FanOut& copy);

  Cohorts& cohorts_;
  FaultGuards& guards_;
  RoundLedger& ledger_;
  const ActorTags& tags_;
  std::map<int, size_t> wanted_;  // round -> hospitals its selection wanted (faults.over_selection)
};

}  // namespace fedgrid

#pragma once
// timing.cohorts: identical hospitals (same tier, overrides and sample count) act as one
// representative whose activities stand for its whole cohort. This class says who acts for
// whom in a parallel step, how many hospitals a node's activity counts for, and refuses what
// a cohort cannot stand for (a member acting alone, peer-to-peer traffic).
#include <cstdint>
#include <vector>

#include "platforms/topology.hpp"
#include "sim/scenario/scenario.hpp"

namespace fedgrid {

class Node;
class Hospital;

class Cohorts {
 public:
  Cohorts(const Scenario& scenario, const platforms::PlatformHosts& platform, size_t hospitals);
  // Indices of `hospitals` that act: all of them, or with cohorts one per cohort (each cohort
  // must be whole in `hospitals`); members[i] lists who index i acts for. The acting
  // representatives count for their cohort until release().
  std::vector<size_t> acting(const std::vector<Hospital*>& hospitals, std::vector<std::vector<size_t>>& members);
  void release(int hospital);
  // Hospitals a node's activity stands for: its cohort's size while it acts for the cohort.
  int64_t multiplicity(const Node* node) const;
  // Input errors: a cohort member acting outside a parallel step of its whole cohort; a
  // transfer between hospitals under cohorts.
  void check_alone(const Node& node) const;
  void check_route(const Node& from, const Node& to) const;

 private:
  const Scenario& scenario_;
  const platforms::PlatformHosts& platform_;
  std::vector<int64_t> acting_for_;  // by hospital id: its cohort's size while it acts for it, else 0
};

}  // namespace fedgrid

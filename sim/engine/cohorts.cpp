#include "sim/engine/cohorts.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "sim/core/input_error.hpp"
#include "sim/engine/node.hpp"

namespace fedgrid {

Cohorts::Cohorts(const Scenario& scenario, const platforms::PlatformHosts& platform, size_t hospitals)
    : scenario_(scenario), platform_(platform), acting_for_(hospitals, 0) {}

void Cohorts::release(int hospital) { acting_for_[size_t(hospital)] = 0; }

int64_t Cohorts::multiplicity(const Node* node) const {
  if (!node || node->is_server()) return 1;
  return std::max<int64_t>(1, acting_for_[size_t(node->id())]);
}

void Cohorts::check_alone(const Node& node) const {
  if (node.is_server() || !scenario_.timing.cohorts) return;
  const size_t id = size_t(node.id());
  // Refused at set-up from the algorithm's traits (algorithms/registry.hpp): reaching one of
  // these is a bug.
  if (platform_.cohort_size[id] > 1 && acting_for_[id] == 0)
    throw std::logic_error("hospital '" + node.name() + "' acted outside a parallel step of its whole cohort: algorithm '" +
                           scenario_.algorithm.name + "''s registry entry does not declare acts_alone");
}

void Cohorts::check_route(const Node& from, const Node& to) const {
  check_alone(from), check_alone(to);
  if (scenario_.timing.cohorts && !from.is_server() && !to.is_server())
    throw std::logic_error("'" + from.name() + "' sent to '" + to.name() + "' under timing.cohorts: algorithm '" +
                           scenario_.algorithm.name + "''s registry entry does not declare sends_peer_to_peer");
}

std::vector<size_t> Cohorts::acting(const std::vector<Hospital*>& hs, std::vector<std::vector<size_t>>& members) {
  members.assign(hs.size(), {});
  std::vector<size_t> out;
  if (!scenario_.timing.cohorts) {  // everyone acts for themselves (even listed twice)
    for (size_t i = 0; i < hs.size(); ++i) out.push_back(i), members[i] = {i};
    return out;
  }
  const auto& p = platform_;
  std::map<int, size_t> acting_index;  // representative id -> index in hs acting for its cohort
  for (size_t i = 0; i < hs.size(); ++i) {
    auto [it, first] = acting_index.emplace(p.representative[size_t(hs[i]->id())], i);
    if (first) out.push_back(i);
    members[it->second].push_back(i);
  }
  for (size_t i : out) {
    const int size = p.cohort_size[size_t(hs[i]->id())];
    if (int(members[i].size()) != size)
      throw std::logic_error("a parallel step took " + std::to_string(members[i].size()) + " of the " +
                             std::to_string(size) + " hospitals of " + hs[i]->name() + "'s cohort: algorithm '" +
                             scenario_.algorithm.name + "''s registry entry does not declare selects_fraction");
    acting_for_[size_t(hs[i]->id())] = int64_t(members[i].size());
  }
  return out;
}

}  // namespace fedgrid

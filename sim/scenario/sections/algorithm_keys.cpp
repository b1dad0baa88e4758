// algorithm.name: its key (the algorithm's own keys are its own declarations, beside its code);
// no cross-key rules.
#include "sim/scenario/sections/parts.hpp"

namespace fedgrid::sections {

void algorithm_keys(Keys& k) {
  using S = Scenario;
  k.group("algorithm", "The federated algorithm and its own keys")
      .custom("algorithm.name", KeyType::String, "fedavg", "Algorithm (see `fedgrid list algorithms`)", {},
              [](S& s, const KeyValues& from) {
                s.algorithm.name = *from.value<std::string>("algorithm.name");
                s.algorithm.settings = from.section("algorithm");
              });
}

}  // namespace fedgrid::sections

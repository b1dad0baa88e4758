#pragma once
// Models posted hospital to hospital (Federation::post), held until their receiver collects
// them, by (receiver, round). A wait returns empty once the run is closed (a stop condition),
// or once the sender's model is known never to come (faults: the sender was offline or
// crashed, or the transfer was cut).
#include <map>
#include <set>
#include <tuple>
#include <optional>
#include <utility>

#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include "sim/core/model.hpp"

namespace fedgrid {

class PeerMail {
 public:
  void deliver(int to, int round, Model model);
  // Waits (in simulated time) until the model `from` posts to `at` for `round` has arrived, the
  // run closed, or the post was lost.
  std::optional<Model> collect(int at, int round, int from);
  void lost(int from, int round);          // nothing `from` posts for `round` will arrive
  void lost(int from, int to, int round);  // its post to `to` will not
  void close();

 private:
  void open();  // SimGrid's mutex and condition variable exist only once the engine runs
  std::map<std::pair<int, int>, Model> inbox_;
  std::set<std::pair<int, int>> lost_senders_;     // (from, round)
  std::set<std::tuple<int, int, int>> lost_posts_;  // (from, to, round)
  simgrid::s4u::MutexPtr mutex_;
  simgrid::s4u::ConditionVariablePtr delivered_;
  bool closed_ = false;
};

}  // namespace fedgrid

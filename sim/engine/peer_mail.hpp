#pragma once
// Models posted hospital to hospital (Federation::post), held until their receiver collects
// them, by (receiver, round). A wait returns empty once the run is closed (a stop condition).
#include <map>
#include <optional>
#include <utility>

#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include "sim/core/model.hpp"

namespace fedgrid {

class PeerMail {
 public:
  void deliver(int to, int round, Model model);
  // Waits (in simulated time) until the model for (at, round) has arrived, or the run closed.
  std::optional<Model> collect(int at, int round);
  void close();

 private:
  void open();  // SimGrid's mutex and condition variable exist only once the engine runs
  std::map<std::pair<int, int>, Model> inbox_;
  simgrid::s4u::MutexPtr mutex_;
  simgrid::s4u::ConditionVariablePtr delivered_;
  bool closed_ = false;
};

}  // namespace fedgrid

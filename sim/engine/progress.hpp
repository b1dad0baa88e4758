#pragma once
// A one-line progress display on stderr, only when stderr is a terminal.
#include "sim/engine/observer.hpp"

namespace fedgrid {

class ProgressLine : public Observer {
 public:
  explicit ProgressLine(int rounds) : rounds_(rounds) {}
  void on_round(const RoundReport& r) override;
  void on_finish(const RunSummary& s) override;
  static bool wanted();

 private:
  int rounds_;
};

}  // namespace fedgrid

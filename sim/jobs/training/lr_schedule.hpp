#pragma once
// The learning rate a round's local jobs train at (training.lr_schedule). The rate depends on
// the round alone, so a resumed run and a pipelined hospital in its own round get the same one.
#include <cmath>

#include "sim/core/modes.hpp"

namespace fedgrid {

// constant: lr. cosine: lr_min + (lr - lr_min)(1 + cos(pi (round - 1) / rounds)) / 2, so round 1
// trains at lr and the rate falls toward lr_min at `rounds` (stop.rounds); rounds past it (a
// resumed run given more) stay at lr_min.
inline double lr_at_round(LrSchedule schedule, double lr, double lr_min, int round, int rounds) {
  if (schedule != LrSchedule::Cosine || rounds <= 0) return lr;
  const double done = std::min(1.0, std::max(0.0, double(round - 1) / double(rounds)));
  return lr_min + (lr - lr_min) * 0.5 * (1.0 + std::cos(M_PI * done));
}

}  // namespace fedgrid

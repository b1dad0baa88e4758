#include "sim/engine/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace fedgrid {

bool ProgressLine::wanted() { return isatty(STDERR_FILENO); }

void ProgressLine::on_round(const RoundReport& r) {
  std::string acc = r.accuracy ? fmt::format("{:.2f}%", *r.accuracy * 100) : "-";
  fmt::print(stderr, "\r\033[Kround {}/{}  accuracy {}  simulated {:.1f} s  {:.1f} MB sent", r.round, rounds_, acc,
             r.sim_time_s, double(r.bytes_up + r.bytes_down) / 1e6);
  std::fflush(stderr);
}

void ProgressLine::on_finish(const RunSummary&) { fmt::print(stderr, "\n"); }

}  // namespace fedgrid

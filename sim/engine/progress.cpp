#include "sim/engine/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace fedgrid {

bool ProgressLine::wanted() { return isatty(STDERR_FILENO); }

void ProgressLine::on_round(const RoundReport& r) {
  const auto accuracy = r.real("accuracy");
  std::string acc = accuracy ? fmt::format("{:.2f}%", *accuracy * 100) : "-";
  fmt::print(stderr, "\r\033[Kround {}/{}  accuracy {}  simulated {:.1f} s  {:.1f} MB sent", r.round, rounds_, acc,
             r.sim_time_s, double(r.integer("bytes_up").value_or(0) + r.integer("bytes_down").value_or(0)) / 1e6);
  std::fflush(stderr);
}

void ProgressLine::on_finish(const RunSummary&) { fmt::print(stderr, "\n"); }

}  // namespace fedgrid

#pragma once
// One clock for every process of an emulation: CLOCK_MONOTONIC is system-wide, so a time
// taken in one process can be compared with a time taken in another (the launcher hands
// every process the same start instant).
#include <cerrno>
#include <cstdint>
#include <ctime>

namespace fedgrid::emulator {

inline int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// Sleeps until an absolute instant (no drift from relative sleeps strung together).
inline void sleep_until_ns(int64_t t) {
  timespec ts{time_t(t / 1'000'000'000), long(t % 1'000'000'000)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

inline int64_t seconds_to_ns(double s) { return int64_t(s * 1e9 + 0.5); }

}  // namespace fedgrid::emulator

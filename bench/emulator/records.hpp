#pragma once
// What the emulation measures, in fedgrid's own files and columns (events.csv: start_s,
// end_s, host, kind, peer, bytes, flops, round; rounds.csv: round, sim_time_s, ...), times in
// seconds since the common start, so an emulated run and a simulated one compare row by row.
#include <cstdint>
#include <fstream>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace fedgrid::emulator {

// The round of an event that counts toward the round in which it ends, which its process
// cannot know (FedAsync: a round is one mix of the server, made while hospitals train and
// send): merge_parts places it by its end among the rounds' end times, and leaves out those
// that end after the last round.
inline constexpr int kPlacedByTime = 0;

// One process's measurements, appended to DIR/parts/<role>.csv as they happen (each line
// flushed, so a failed run keeps what it had). Thread-safe.
class PartWriter {
 public:
  PartWriter(const std::string& path, int64_t t0_ns);
  // kind: compute | send | server (fedgrid's kinds); a send is recorded by its receiver.
  void event(int64_t start_ns, int64_t end_ns, const std::string& host, const std::string& kind,
             const std::string& peer, int64_t bytes, double flops, int round);
  // The instant round `round`'s model is ready (fedgrid's sim_time_s).
  void round_end(int round, int64_t at_ns);

 private:
  std::mutex mutex_;
  std::ofstream out_;
  int64_t t0_ns_;
};

// Merges DIR/parts/*.csv into DIR/events.csv (ordered by round, then start; kPlacedByTime
// events placed) and
// DIR/rounds.csv (round, sim_time_s, bytes_up, bytes_down, bytes_peer, messages; up/down are
// to/from `server`), then removes DIR/parts. Returns (round, sim_time_s) in round order.
std::vector<std::pair<int, double>> merge_parts(const std::string& dir, const std::string& server);

}  // namespace fedgrid::emulator

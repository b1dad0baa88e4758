#pragma once
// Which round the calling simulated actor works on: the run's current round (the one done()
// let begin), or a round of its own (a pipelined hospital, a peer-to-peer courier); and the
// job number of an asynchronous job. Activities are counted toward the round as it is when
// they end (an asynchronous job's transfer may end in a later round than it began in).
#include <cstdint>
#include <map>
#include <optional>

namespace fedgrid {

class ActorTags {
 public:
  void set_run_round(int round) { run_round_ = round; }
  int run_round() const { return run_round_; }
  void enter_round(int round);  // the calling actor works on `round` from now on
  void leave_round();           // ... and no longer
  int round() const;            // the calling actor's round, or the run's when it has none
  bool any_round() const { return !rounds_.empty(); }  // some actor works on a round of its own

  void start_job(uint64_t job);  // the calling actor runs asynchronous job `job`
  void end_job();
  std::optional<uint64_t> job() const;  // the calling actor's job, if it runs one

 private:
  int run_round_ = 0;
  std::map<long, int> rounds_;     // by pid
  std::map<long, uint64_t> jobs_;  // by pid
};

}  // namespace fedgrid

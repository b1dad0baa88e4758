#pragma once
// Charging compute in simulated time: a job's Charge on the host where it runs, as FLOPs at
// the host's speed (timing.compute: flops) or as the profiled seconds of its steps
// (timing.compute: profile); server work (aggregation, distillation) in FLOPs either way.
// A hospital's job under faults may be cut part way (FaultGuards).
#include <functional>

#include "sim/engine/activity.hpp"
#include "sim/jobs/local_work.hpp"

namespace fedgrid {

class Node;
class FaultGuards;
class RoundLedger;
class ActorTags;
struct World;

class ComputeCharge {
 public:
  ComputeCharge(const World& world, FaultGuards& guards, RoundLedger& ledger, const ActorTags& tags,
                RecordActivity record);
  // Charges `charge` on `where`'s host as one activity of the calling actor's round (as it is
  // when the activity ends). When faults cut a hospital's job, the part done is recorded,
  // `drop_job()` waits out the real job (it cannot be stopped half way; its result is dropped)
  // and HospitalLost is thrown.
  void job(Node& where, const Charge& charge, const std::function<void()>& drop_job);
  // Server work of `flops` on `server`'s host (a profile measures local training steps only).
  void server(Node& server, double flops);
  // A codec's work (compression.*: encoding before a transfer, decoding after it) of `flops`
  // on `where`'s host, recorded as `kind` ("encode" / "decode"); in FLOPs under any
  // timing.compute. Under faults a hospital's guard may cut it (HospitalLost).
  void codec(Node& where, double flops, const char* kind);

 private:
  // What SimGrid executes for `charge` on `where`: its FLOPs, or with timing.compute: profile
  // its profiled seconds as work on the host (seconds x host speed).
  double amount(const Node& where, const Charge& charge) const;
  const World& world_;
  FaultGuards& guards_;
  RoundLedger& ledger_;
  const ActorTags& tags_;
  RecordActivity record_;
};

}  // namespace fedgrid

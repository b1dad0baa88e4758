#pragma once
// Local training as three steps kept apart:
//   building    the real job: start model, samples, optimiser and rate of this round, its seed;
//   charging    its simulated cost on the node's host (ComputeCharge);
//   collecting  its result into an Update: at once, or when the server's fold reaches it
//               (Hospital::train_later: a deferred job).
// A timing-only run builds no real job: its Update holds the model's shape only.
#include <cstdint>
#include <memory>

#include "data/partition.hpp"
#include "sim/core/model.hpp"
#include "sim/engine/compute_charge.hpp"
#include "sim/jobs/local_work.hpp"
#include "sim/jobs/training_queue.hpp"

namespace fedgrid {

class Node;
class Cohorts;
class ActorTags;
class FaultGuards;
class RoundLedger;
struct World;

// What a job trains on: indices into the training pool, and how many samples (a timing-only
// run with data.samples_per_hospital has the count but no indices).
struct JobSamples {
  const data::Indices& train;
  const data::Indices& validation;
  int64_t count;
};

class TrainingJobs {
 public:
  TrainingJobs(World& world, RoundLedger& ledger, FaultGuards& guards, Cohorts& cohorts, const ActorTags& tags,
               ComputeCharge& charge);
  ~TrainingJobs();
  // Runs `work` on `where` from `model`, with the job's own `seed`: the rate is the calling
  // actor's round's as the job begins, its figures go to that round as it ends.
  // `later`: the work, owned, when its real job may wait for the server's fold (train_later).
  Update train(Node& where, const Model& model, LocalWork& work, const JobSamples& samples, uint64_t seed,
               std::unique_ptr<LocalWork> later = nullptr);
  // Server work on the executor: work.run() in real runs, work.flops() charged either way.
  void run_on_server(Node& server, ServerWork& work);
  // train_later jobs not yet folded (a round must not end with any).
  int unfinished() const { return unfinished_; }

 private:
  class DeferredJob;
  void check_trainable(const Node& where, const LocalWork& work) const;
  JobInput build(const Model& model, const JobSamples& samples, int round, uint64_t seed) const;
  // Submitted first, then the simulated cost charged: hospitals that train in the same
  // simulated window have all submitted before any of them blocks on its result.
  TrainingQueue::Ticket submit(LocalWork& work, const JobInput& job, std::shared_ptr<const void> keep_alive = nullptr);
  TrainOutcome await(TrainingQueue::Ticket& ticket);
  // The job's update (its weights and losses once it has run) and its hospital's figures.
  Update collect(Node& where, const Model& model, const JobSamples& samples, const Charge& charge, int round,
                 double started, std::optional<TrainOutcome> outcome);


  World& world_;
  RoundLedger& ledger_;
  FaultGuards& guards_;
  Cohorts& cohorts_;
  const ActorTags& tags_;
  ComputeCharge& charge_;
  int unfinished_ = 0;
};

}  // namespace fedgrid

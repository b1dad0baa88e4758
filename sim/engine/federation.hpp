#pragma once
// The Federation API: everything an algorithm calls. Each call that costs time (a transfer,
// a training job, server work) is a simulated activity on the right host; each call that
// changes a model does real work. Algorithms never touch SimGrid or threads themselves.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "data/partition.hpp"
#include "sim/core/model.hpp"
#include "sim/jobs/local_work.hpp"
#include "sim/engine/kept_state.hpp"
#include "sim/engine/node.hpp"
#include "sim/engine/observer.hpp"
#include "sim/scenario/scenario.hpp"

namespace simgrid::s4u {
class Activity;
}

namespace fedgrid {

class Federation;
struct World;
class Cohorts;
class PeerMail;
class RoundLedger;
class RunMetrics;
class Evaluator;
class EnergyMeter;
class StateReader;
class FaultGuards;
class Transport;
class ComputeCharge;
class TrainingJobs;
class ParallelRound;
class Checkpointer;
class CompressedLinks;
class ActorTags;
class JobSite;
class Kept;
struct Guard;

enum class Ordering { Fixed, Random };

// How many of `hospitals` Federation::select(fraction) draws before over-selection: the nearest
// whole number, at least one and at most all.
size_t selected_count(double fraction, size_t hospitals);

// The samples a training job covers: indices into the training pool, and how many (a
// timing-only run with data.samples_per_hospital has the count but no indices).
struct TrainingSamples {
  data::Indices indices;
  int64_t count = 0;
};

class Federation {
 public:
  Federation(World& world, std::vector<Observer*> observers);
  ~Federation();

  const Scenario& scenario() const;

  // --- who takes part
  Node& server() { return *server_; }
  std::vector<Hospital*> hospitals();
  // A share of hospitals drawn for `round` from the scenario seed, ordered by id. With
  // faults.over_selection, (1 + over_selection) x that many, of which parallel() keeps the
  // first that many to report.
  std::vector<Hospital*> select(double fraction, int round);
  std::vector<Hospital*> order(int round, Ordering ordering);

  // --- models
  Model init_model() const;  // built once from the seed, before the simulation starts
  // The initial model of `tier`'s own architecture (model.<tier>), or init_model() when the
  // scenario gives the tier none.
  Model init_tier_model(const std::string& tier) const;
  bool has_tier_model(const std::string& tier) const;
  models::ModelSpec tier_spec(const std::string& tier) const;  // model.<tier>, or the global spec
  const std::vector<std::string>& tiers() const;  // present among hospitals, catalog order
  // The model hospital `h` trains where every hospital keeps its own (local, fedskd): its
  // group's platform.hospitals[].model, else its tier's model.<tier>, else the global model.
  models::ModelSpec hospital_spec(const Hospital& h) const;
  Model init_hospital_model(const Hospital& h) const;

  // --- activities that cost simulated time
  // Sends `model` from `from` to `to` and gives what the receiver holds. Without compression,
  // `model` itself (nothing copied; payload_bytes() cross). With compression.uplink/downlink
  // (docs/guide/compression.md), the encoded difference to the pair's reference crosses and
  // this is the decoded model, which the link keeps as the pair's next reference until their
  // next transfer: train and average on it, copy it to keep it longer. A reference, not a
  // copy, so that a train_later job (which holds its start model by address) can start from
  // what arrived without a copy per hospital.
  [[nodiscard]] const Model& send(Node& from, Node& to, const Model& model);
  void send_bytes(Node& from, Node& to, int64_t bytes);
  // Input errors before a transfer: cohorts' limits, no path in a user's XML platform.
  void check_path(const Node& from, const Node& to);
  // Peer to peer without a rendezvous: `from` starts sending a copy of `model` to `to` now and
  // goes on; `to` takes it with collect(to, round), which waits until it has arrived. Round
  // `round` is what the transfer counts toward (hospitals may be in different rounds at once).
  void post(Hospital& from, Hospital& to, Model model, int round);
  // The model `from` posted to `at` for `round`, once it has arrived; empty when the run
  // stopped (a stop condition was met) before it did, or when it will never come (faults:
  // `from` was offline or crashed, or the transfer was cut).
  std::optional<Model> collect(Hospital& at, int round, const Hospital& from);
  // Runs `body(h)` for every hospital concurrently, one simulated actor on each hospital's
  // host, and joins them. Results come back in the order of `hospitals`, never by completion.
  // With timing.cohorts, `body` runs once per cohort, on its representative, and every other
  // member gets a copy of the representative's result.
  // Under faults, a hospital's body runs under a guard (visit()): the results of hospitals that
  // were offline, crashed, were cut by their availability or were late (faults.deadline_s; the
  // ones past the first K with faults.over_selection) are left out: aggregate what arrived.
  template <class F>
  auto parallel(const std::vector<Hospital*>& hospitals, F&& body) {
    using R = decltype(body(*hospitals.front()));
    std::vector<std::optional<R>> slots(hospitals.size());
    run_parallel(
        hospitals, [&](size_t i) { slots[i].emplace(body(*hospitals[i])); },
        [&](size_t from, size_t to) { slots[to].emplace(copy_for(*slots[from], *hospitals[to])); },
        [&](size_t i) { slots[i].reset(); });
    std::vector<R> results;
    results.reserve(slots.size());
    for (auto& s : slots)
      if (s) results.push_back(std::move(*s));
    return results;
  }
  // A relay's visit: runs body() as hospital `h`'s work in the calling actor. Without faults,
  // body()'s result. Under faults, empty when `h` is offline as the visit begins, or when a
  // crash, the end of its availability or the round's deadline cuts the visit short
  // (hospitals.csv's status says which; what it spent counts as lost in summary.json).
  template <class F>
  auto visit(Hospital& h, F&& body) {
    std::optional<decltype(body())> result;
    run_visit(h, [&] { result.emplace(body()); });
    return result;
  }
  // Server-side work: computes `work()` and charges `flops` on the server host.
  template <class F>
  auto on_server(double flops, F&& work) {
    auto result = work();
    charge_server(flops);
    return result;
  }
  void charge_server(double flops);
  // Runs `work` on the server host from `model`: over `samples` of the training pool (pooled
  // data), or over the server's own share (server_data(), its validation split included).
  Update train_on_server(const Model& model, const TrainingSamples& samples, LocalWork& work);
  Update train_on_server(const Model& model, const TrainingSamples& samples, LocalWork&& work) {
    return train_on_server(model, samples, work);
  }
  Update train_on_server(const Model& model, LocalWork&& work);
  // The server's own data (data.server_share of the pool, split train/val/test like a
  // hospital's); empty when the share is 0.
  const data::HospitalSplit& server_data() const;
  // Server work on the executor (distillation, scoring on its own data): work.run() in real
  // runs, work.flops() charged on the server host either way.
  void run_on_server(ServerWork& work);

  // --- checkpoints (output.checkpoint_every) and resume (fedgrid resume)
  // Names what the algorithm keeps from one round to the next and gives the round its loop
  // starts from: 1, or in a resumed run the round after the checkpoint's, its state then
  // loaded into the variables named here. Call it once, after setting up that state and
  // before any simulated activity. A checkpoint is written at the top of the loop (done(r)
  // for r - 1 a multiple of checkpoint_every): the state as the next round finds it, with
  // nothing under way. Schedules that never reach such a point (pipelined, asynchronous)
  // do not call it, and a scenario that asks them for checkpoints is refused.
  int first_round(std::vector<Kept> state);

  // --- rounds
  // True once the run should stop before `round` (rounds, target accuracy, time budget).
  bool done(int round);
  // Pipelined schedules, where every hospital runs its own rounds inside one parallel() call:
  // enter_round tags the calling actor's activities (and its jobs' seeds) with `round`;
  // continues(round) says whether a hospital should start it (within stop.rounds and no stop
  // condition met yet). Rounds are still reported by end_round, in order.
  void enter_round(int round);
  bool continues(int round) const;
  // Evaluates and records the round. With one global model, every hospital is scored with it
  // on its own test split; with local models (index = hospital id) each with its own.
  void end_round(int round, const Model& global);
  // Model-heterogeneous rounds: `tier_models` holds the model each tier's hospitals keep (a
  // tier missing from it keeps `global`); hospitals are scored with their tier's model.
  void end_round(int round, const Model& global, const std::map<std::string, Model>& tier_models);
  void end_round(int round, const std::vector<Model>& local_models);
  // Asynchronous schedules: hospital `h`'s update, applied in the current round, trained on a
  // model `versions` server versions older than the one it was applied to (hospitals.csv's
  // staleness; with several updates of `h` in one round, the largest).
  void note_staleness(const Hospital& h, int versions);
  // The algorithm's own columns (AlgorithmInfo's round_columns / hospital_columns, after the
  // standard ones): `value` in `column` of round `round`'s row of rounds.csv, or of `h`'s row
  // of hospitals.csv. Note before end_round(round). Throws std::logic_error for a column the
  // algorithm did not declare.
  void note(int round, const std::string& column, std::string value);
  void note(int round, const Hospital& h, const std::string& column, std::string value);

  double now() const;
  int current_round() const { return round_now(); }

  // What an asynchronous schedule's Arrivals (arrivals.hpp) start their jobs with.
  JobSite& job_site();

  // Called by the run driver once the algorithm returns (still inside the simulation).
  RunSummary finish(std::vector<std::pair<std::string, std::string>> versions);
  // Set by the run driver: where checkpoints go, what sizes the output files have (a
  // checkpoint records them so a resumed run cuts later rows off), and the checkpoint a
  // resumed run continues from (null: a fresh run).
  void set_checkpoints(std::string path, std::function<std::vector<int64_t>()> output_sizes,
                       const StateReader* resume_from);

 private:
  friend class Hospital;
  class Jobs;  // what asynchronous jobs need (job_site), federation.cpp
  // Runs body() as `h`'s work of the calling actor's round under `guard` (FaultGuards::run).
  bool run_guarded(Hospital& h, Guard& guard, const std::function<void()>& body, bool counts_update = true);
  void run_visit(Hospital& h, const std::function<void()>& body);
  Update train_on(Node& where, const Model& model, LocalWork& work, const data::Indices& train,
                  const data::Indices& validation, int64_t samples, std::unique_ptr<LocalWork> later = nullptr);
  // A representative's result as a cohort member's: an Update names its hospital.
  template <class R>
  static R copy_for(const R& result, const Hospital& member) {
    R copy = result;
    if constexpr (std::is_same_v<R, Update>) copy.hospital = member.id();
    return copy;
  }
  void run_parallel(const std::vector<Hospital*>& hospitals, const std::function<void(size_t)>& body,
                    const std::function<void(size_t, size_t)>& copy, const std::function<void(size_t)>& drop);
  void record(const Activity& a, const Node* from, const Node* to);
  // send() under compression.*: through its direction's codec (encode, cross, decode), or
  // whole where that direction has none.
  const Model& send_compressed(Node& from, Node& to, const Model& model);
  void start_observers(std::vector<Observer*>& observers);
  void check_round_closed(int round) const;  // before a round is reported: nothing deferred left
  int round_now() const;  // the calling actor's round (enter_round), else the run's
  // A training job's seed: (hospital, round), or (hospital, job number) in an asynchronous job.
  uint64_t job_seed(int id) const;
  double energy_j();

  World& world_;
  std::unique_ptr<Node> server_;
  std::vector<std::unique_ptr<Hospital>> hospitals_;
  std::vector<std::string> tiers_;       // present among hospitals, in report order
  std::unique_ptr<Cohorts> cohorts_;     // who acts for whom (timing.cohorts)
  std::set<std::pair<const simgrid::s4u::Host*, const simgrid::s4u::Host*>> paths_checked_;  // check_path
  std::unique_ptr<PeerMail> mail_;       // models posted peer to peer
  std::shared_ptr<const RunMetrics> metrics_;  // the run's metric table, built once
  std::unique_ptr<RoundLedger> ledger_;  // rounds' figures, reports, stop conditions
  std::unique_ptr<FaultGuards> guards_;  // faults.*: hospitals' work cut by crashes, traces, deadlines
  std::unique_ptr<Transport> transport_;  // how transfers cross the network (chosen once)
  std::unique_ptr<ComputeCharge> charge_;  // compute charged in simulated time
  std::unique_ptr<CompressedLinks> links_;  // compression.*: codecs, references, error feedback (null: off)
  std::unique_ptr<TrainingJobs> training_;
  std::unique_ptr<ParallelRound> parallel_;
  std::unique_ptr<Evaluator> evaluator_;
  std::unique_ptr<EnergyMeter> energy_;  // joules per host (resumable, unlike the plugin's sums)
  std::unique_ptr<Checkpointer> checkpoints_;
  std::unique_ptr<ActorTags> tags_;      // the run's round, and actors' rounds and jobs of their own
  std::unique_ptr<Jobs> jobs_;
  double round_started_ = 0;              // when done(round_) let the round begin (faults.deadline_s)
};

}  // namespace fedgrid

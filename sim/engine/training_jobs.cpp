#include "sim/engine/training_jobs.hpp"
#include "sim/engine/sim_clock.hpp"

#include <simgrid/s4u.hpp>

#include <chrono>
#include <future>
#include <stdexcept>

#include "sim/engine/actor_tags.hpp"
#include "sim/engine/cohorts.hpp"
#include "sim/engine/fault_guard.hpp"
#include "sim/engine/node.hpp"
#include "sim/engine/round_ledger.hpp"
#include "sim/engine/world.hpp"
#include "sim/jobs/compute.hpp"
#include "sim/jobs/deferred_training.hpp"
#include "sim/jobs/training/lr_schedule.hpp"

namespace fedgrid {
namespace sg4 = simgrid::s4u;

namespace {

// A job's result, adding the wall time the simulation waited for it to `waited_s` (perf.json).
template <class T>
T await_job(std::future<T>& job, double& waited_s) {
  const auto t0 = std::chrono::steady_clock::now();
  auto waited = [&] { waited_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  if constexpr (std::is_void_v<T>) {
    job.get();
    waited();
  } else {
    T result = job.get();
    waited();
    return result;
  }
}

}  // namespace

// A train_later job: runs when the server's fold reaches its update (for_each_trained), and
// then fills in what train() leaves out of a deferred update: weights, losses, the hospital's
// training loss in hospitals.csv.
class TrainingJobs::DeferredJob final : public DeferredTraining, public std::enable_shared_from_this<DeferredJob> {
 public:
  DeferredJob(TrainingJobs& jobs, std::unique_ptr<LocalWork> work, const JobInput& job, Update shape, int round)
      : jobs_(jobs), work_(std::move(work)), job_(job), shape_(std::move(shape)), round_(round) {
    ++jobs_.unfinished_, ++jobs_.world_.perf.jobs_run_at_aggregation;
  }
  void start() override {
    if (started_) return;
    started_ = true;
    // The executor's job holds this one alive even if its update is dropped meanwhile.
    ticket_ = jobs_.submit(*work_, job_, shared_from_this());
  }
  Update finish() override {
    if (finished_) throw std::logic_error("a deferred training job finished twice");
    start();
    TrainOutcome out = jobs_.await(ticket_);
    finished_ = true;
    --jobs_.unfinished_;
    Update u = shape_;
    u.model.weights = std::move(out.weights);
    u.train_loss = out.mean_loss;
    u.batch_losses = std::move(out.batch_losses);
    jobs_.ledger_.round(round_).stats[size_t(u.hospital)].train_loss = u.train_loss;
    return u;
  }
  // Enough started ahead to keep every worker busy, or to fill a fused job.
  int ahead() const override {
    return std::max(jobs_.world_.executor->workers(), jobs_.world_.training->fuse_limit());
  }

 private:
  TrainingJobs& jobs_;
  std::unique_ptr<LocalWork> work_;
  JobInput job_;
  Update shape_;  // the update as train() returned it, without weights
  int round_;
  bool started_ = false, finished_ = false;
  TrainingQueue::Ticket ticket_;
};

TrainingJobs::TrainingJobs(World& world, RoundLedger& ledger, FaultGuards& guards, Cohorts& cohorts,
                           const ActorTags& tags, ComputeCharge& charge)
    : world_(world), ledger_(ledger), guards_(guards), cohorts_(cohorts), tags_(tags), charge_(charge) {}

TrainingJobs::~TrainingJobs() = default;

Update TrainingJobs::train(Node& where, const Model& model, LocalWork& work, const JobSamples& samples, uint64_t seed,
                           std::unique_ptr<LocalWork> later) {
  check_trainable(where, work);
  const auto& t = world_.scenario.training;
  const bool real = !t.timing_only;
  const bool after = real && work.charged_after_run();  // charged once it has said how long it took
  // The fold will run the job (train_later): only where nothing can cut it, its charge is
  // known before it runs, and no codec must encode its weights as it is sent (compression.*).
  const bool defer = later && real && !after && !where.is_server() && !guards_.here() && !world_.scenario.compression.any();
  JobInput job;
  TrainingQueue::Ticket ticket;
  if (real) {
    job = build(model, samples, tags_.round(), seed);
    if (!defer) ticket = submit(work, job);
  }
  std::optional<TrainOutcome> out;
  if (after) out = await(ticket);
  const JobShape shape{model.spec, samples.count, int64_t(samples.validation.size()), t.batch_size, t.local_steps};
  const Charge charge = work.cost(shape, out ? &*out : nullptr);
  if (real) world_.perf.training_flops += charge.flops;  // a job cut by faults still runs whole
  const double started = sim_now();
  charge_.job(where, charge, [&] {
    if (real && !after) await(ticket);
  });
  if (real && !after && !defer) out = await(ticket);
  const int round = tags_.round();  // an asynchronous job's may have moved on while it ran
  Update update = collect(where, model, samples, charge, round, started, std::move(out));
  if (defer) update.deferred = std::make_shared<DeferredJob>(*this, std::move(later), job, update, round);
  return update;
}

void TrainingJobs::check_trainable(const Node& where, const LocalWork& work) const {
  const auto& sc = world_.scenario;
  cohorts_.check_alone(where);
  // Refused at set-up from the algorithm's traits (algorithms/registry.hpp): reaching it is a bug.
  if (const std::string why = work.needs_real_training(); !why.empty() && sc.training.timing_only)
    throw std::logic_error("algorithm '" + sc.algorithm.name + "' " + why + " in a timing-only run: its registry "
                           "entry does not declare needs_real_training");
}

JobInput TrainingJobs::build(const Model& model, const JobSamples& samples, int round, uint64_t seed) const {
  const auto& t = world_.scenario.training;
  const OptimizerConfig optimizer{
      t.optimizer, lr_at_round(t.lr_schedule, t.lr, t.lr_min, round, world_.scenario.stop.rounds), t.momentum,
      t.weight_decay};
  return JobInput{&model,        &world_.data.train, &samples.train, &samples.validation, t.batch_size,
                  t.local_steps, optimizer,          seed,           world_.device,       t.precision,
                  world_.scenario.data.augment};
}

TrainingQueue::Ticket TrainingJobs::submit(LocalWork& work, const JobInput& job,
                                           std::shared_ptr<const void> keep_alive) {
  return world_.training->submit(work, job, std::move(keep_alive));
}

// A held job (training.fuse) starts, with every other held one, when it is first waited for.
TrainOutcome TrainingJobs::await(TrainingQueue::Ticket& ticket) {
  world_.training->launch(ticket);
  return await_job(ticket.result, world_.perf.wait_training_s);
}

Update TrainingJobs::collect(Node& where, const Model& model, const JobSamples& samples, const Charge& charge,
                             int round, double started, std::optional<TrainOutcome> outcome) {
  Update update{where.id(), shape_only_model(model.spec, model.values()), samples.count, charge.epochs, 0.0, {}, {}};
  if (outcome) {
    update.model.weights = std::move(outcome->weights);
    update.train_loss = outcome->mean_loss;
    update.batch_losses = std::move(outcome->batch_losses);
  }
  if (!where.is_server()) {
    auto& st = ledger_.round(round).stats[size_t(where.id())];
    st.samples = samples.count, st.epochs += charge.epochs, st.compute_s += sim_now() - started, st.took_part = true;
    if (!world_.scenario.training.timing_only) st.train_loss = update.train_loss;  // a deferred job sets it when it runs
  }
  return update;
}

void TrainingJobs::run_on_server(Node& server, ServerWork& work) {
  std::future<void> job;
  if (!world_.scenario.training.timing_only)
    job = world_.executor->submit([&] {
      in_precision(world_.scenario.training.precision, [&] { work.run(world_.data.train, world_.device); });
    });
  charge_.server(server, work.flops());
  if (job.valid()) await_job(job, world_.perf.wait_training_s);
}

}  // namespace fedgrid

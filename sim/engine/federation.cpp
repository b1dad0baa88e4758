#include "sim/engine/federation.hpp"

#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <set>
#include <tuple>

#include "data/rng.hpp"
#include "sim/core/input_error.hpp"
#include "sim/jobs/metrics.hpp"
#include "sim/core/seed_streams.hpp"
#include "sim/jobs/compute.hpp"
#include "sim/jobs/deferred_training.hpp"
#include "sim/jobs/lr_schedule.hpp"
#include "sim/engine/cohorts.hpp"
#include "sim/engine/energy_meter.hpp"
#include "sim/engine/evaluation.hpp"
#include "sim/engine/peer_mail.hpp"
#include "sim/engine/round_ledger.hpp"
#include "sim/engine/star_fluid.hpp"
#include "sim/engine/state_file.hpp"
#include "sim/engine/crash_points.hpp"
#include "sim/engine/world.hpp"

namespace fedgrid {
namespace sg4 = simgrid::s4u;

namespace {

// Thrown inside a guarded hospital's work once faults cut it; run_guarded catches it.
struct HospitalLost {};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A job's result, adding the wall time the simulation waited for it to `waited_s` (perf.json).
template <class T>
T await(std::future<T>& job, double& waited_s) {
  const auto t0 = std::chrono::steady_clock::now();
  if constexpr (std::is_void_v<T>) {
    job.get();
    waited_s += seconds_since(t0);
  } else {
    T result = job.get();
    waited_s += seconds_since(t0);
    return result;
  }
}

}  // namespace

using namespace seed_streams;

// ---------------------------------------------------------------- hospitals

Update Hospital::train(const Model& model, LocalWork& work) {
  return fed_->train_on(*this, model, work, split_->train, split_->val, train_samples_);
}

Update Hospital::train_on_later(const Model& model, std::unique_ptr<LocalWork> work) {
  LocalWork& w = *work;
  return fed_->train_on(*this, model, w, split_->train, split_->val, train_samples_, std::move(work));
}

// ---------------------------------------------------------------- set-up

Federation::Federation(World& world, std::vector<Observer*> observers) : world_(world) {
  const auto& p = world.platform;
  server_.reset(new Node(-1, p.server_spec.name, p.server_spec.tier, p.server));
  for (size_t i = 0; i < p.hospitals.size(); ++i)
    hospitals_.emplace_back(new Hospital(this, int(i), p.hospital_specs[i].name, p.hospital_specs[i].tier,
                                         p.hospitals[i], &world.splits[i], world.train_samples(i)));
  if (world.scenario.timing.network == "fluid") {
    // The fluid model shares the server's links only: the backbone they both cross must never
    // be the narrower one.
    const auto& sc = world.scenario;
    if (sc.platform.backbone_bandwidth_bps < p.server_spec.uplink_bps + p.server_spec.downlink_bps)
      throw sc.error_at("timing.network", "fluid needs platform.backbone.bandwidth_bps (" +
                                              std::to_string(sc.platform.backbone_bandwidth_bps) +
                                              ") at least the server's uplink + downlink (" +
                                              std::to_string(p.server_spec.uplink_bps + p.server_spec.downlink_bps) +
                                              " bit/s), so that only the server's links are shared");
    fluid_ = std::make_unique<StarFluid>(p, sc.platform.backbone_latency_s);
  }

  // Tiers present among hospitals, in catalog order, then any only an XML platform names.
  std::set<std::string> present;
  for (const auto& h : hospitals_) present.insert(h->tier());
  for (const auto& t : world.catalog.tiers)
    if (present.count(t.name)) tiers_.push_back(t.name);
  for (const auto& h : hospitals_)
    if (std::find(tiers_.begin(), tiers_.end(), h->tier()) == tiers_.end()) tiers_.push_back(h->tier());

  RunInfo info{world.scenario.name, world.scenario.algorithm.name, world.scenario.seed, tiers_, {},
               world.scenario.output.site_metrics};
  info.hosts.push_back(server_->name());
  for (const auto& h : hospitals_) info.hosts.push_back(h->name());
  info.round_columns = world.round_columns, info.hospital_columns = world.hospital_columns;
  for (auto* o : observers) o->on_start(info);

  std::vector<LedgerRow> rows;
  std::vector<EvaluatedHospital> evaluated;
  for (const auto& h : hospitals_) {
    rows.push_back({h->id(), h->name(), h->tier()});
    evaluated.push_back({h->tier(), &h->split()});
  }
  cohorts_ = std::make_unique<Cohorts>(world.scenario, world.platform, hospitals_.size());
  mail_ = std::make_unique<PeerMail>();
  ledger_ = std::make_unique<RoundLedger>(world.scenario, std::move(rows), tiers_, std::move(observers),
                                          [this] { mail_->close(); });
  ledger_->set_columns(world.round_columns, world.hospital_columns);
  evaluator_ = std::make_unique<Evaluator>(world, std::move(evaluated), tiers_);
  std::vector<std::string> names;
  for (const auto& h : hospitals_) names.push_back(h->name());
  faults_ = std::make_unique<FaultPlan>(world.scenario, names);
  apply_link_trace();
  std::vector<sg4::Host*> metered{server_->host()};
  for (const auto& h : hospitals_) metered.push_back(h->host());
  energy_ = std::make_unique<EnergyMeter>(metered);
  // A crashed host draws its wattage_off while it is down.
  for (const auto& h : hospitals_)
    if (faults_->may_crash(h->id()))
      sg4::Actor::create(h->name() + "/downtime", server_->host(), [this, id = h->id(), host = h->host()] {
        for (double t = 0;;) {
          const auto down = faults_->next_downtime(id, t);
          if (down.from == FaultPlan::kNever) return;
          sg4::this_actor::sleep_until(down.from);
          energy_->set_on(host, false);
          if (down.until == FaultPlan::kNever) return;
          sg4::this_actor::sleep_until(down.until);
          energy_->set_on(host, true);
          t = down.until;
        }
      })->daemonize();
}

Federation::~Federation() = default;

const Scenario& Federation::scenario() const { return world_.scenario; }

std::vector<Hospital*> Federation::hospitals() {
  std::vector<Hospital*> all;
  for (auto& h : hospitals_) all.push_back(h.get());
  return all;
}

std::vector<Hospital*> Federation::select(double fraction, int round) {
  auto all = hospitals();
  size_t k = std::clamp<size_t>(size_t(std::llround(fraction * double(all.size()))), 1, all.size());
  if (const double over = world_.scenario.faults.over_selection; over > 0) {
    if (k == all.size()) throw nobody_left_to_over_select(world_.scenario);
    wanted_[round] = k;
    k = std::min(all.size(), size_t(std::ceil(double(k) * (1 + over))));
  }
  if (k == all.size()) return all;
  Rng(mix_seed(world_.scenario.seed, kSelect, uint64_t(round))).shuffle(all);
  all.resize(k);
  std::sort(all.begin(), all.end(), [](auto* a, auto* b) { return a->id() < b->id(); });
  return all;
}

std::vector<Hospital*> Federation::order(int round, Ordering ordering) {
  auto all = hospitals();
  if (ordering == Ordering::Random) Rng(mix_seed(world_.scenario.seed, kOrder, uint64_t(round))).shuffle(all);
  return all;
}

Model Federation::init_model() const {
  if (world_.scenario.training.timing_only) return shape_only_model(world_.spec, world_.cost.state_values);
  return Model{world_.spec, world_.initial_weights};
}

bool Federation::has_tier_model(const std::string& tier) const { return world_.tier_specs.count(tier) > 0; }

models::ModelSpec Federation::tier_spec(const std::string& tier) const {
  return has_tier_model(tier) ? world_.tier_specs.at(tier) : world_.spec;
}

Model Federation::init_tier_model(const std::string& tier) const {
  if (!has_tier_model(tier)) return init_model();
  const auto& spec = world_.tier_specs.at(tier);
  if (world_.scenario.training.timing_only) return shape_only_model(spec, models::model_cost(spec).state_values);
  return Model{spec, world_.initial_weights_of(spec)};
}

const std::vector<std::string>& Federation::tiers() const { return tiers_; }

models::ModelSpec Federation::hospital_spec(const Hospital& h) const { return world_.hospital_specs[size_t(h.id())]; }

Model Federation::init_hospital_model(const Hospital& h) const {
  const auto spec = hospital_spec(h);
  if (world_.scenario.training.timing_only) return shape_only_model(spec, models::model_cost(spec).state_values);
  return Model{spec, world_.initial_weights_of(spec)};
}

double Federation::now() const { return sg4::Engine::get_clock(); }

// ---------------------------------------------------------------- activities

void Federation::record(const Activity& activity, const Node* from, const Node* to) {
  Activity a = activity;
  const int64_t k = std::max(cohorts_->multiplicity(from), cohorts_->multiplicity(to));
  // A cohort's activity is one row standing for k hospitals: "weak-1+9" = weak-1 and 9 more.
  auto label = [&](const Node* n) {
    const int64_t m = cohorts_->multiplicity(n);
    return m > 1 ? n->name() + "+" + std::to_string(m - 1) : n->name();
  };
  if (from) a.host = label(from);
  if (to) a.peer = label(to);
  if (a.kind == "send") ledger_->count_transfer(a.round, from->id(), to->id(), a.bytes, k, a.end_s - a.start_s);
  ledger_->round(a.round).activities.push_back(std::move(a));
}

void Federation::send(Node& from, Node& to, const Model& model) { send_bytes(from, to, model.payload_bytes()); }

void Federation::check_path(const Node& from, const Node& to) {
  cohorts_->check_route(from, to);
  if (fluid_ && !from.is_server() && !to.is_server())
    throw world_.scenario.error_at("timing.network", "fluid models transfers to and from the server only; " +
                                                         world_.scenario.algorithm.name +
                                                         " sends between hospitals (use cm02)");
  // A user's XML platform may leave two hospitals without a path (server routes are checked
  // when it loads); SimGrid would abort on the transfer, so it is an input error here.
  if (world_.scenario.platform.xml.empty() || !paths_checked_.insert({from.host(), to.host()}).second) return;
  if (!platforms::connected(from.host(), to.host()))
    throw InputError(world_.scenario.platform.xml, 0, "platform.xml",
                     "no route from '" + from.host()->get_name() + "' to '" + to.host()->get_name() + "', which " +
                         world_.scenario.algorithm.name + " sends between");
}

void Federation::send_bytes(Node& from, Node& to, int64_t bytes) {
  if (&from == &to) return;  // nothing crosses a network
  check_path(from, to);
  const double start = now();
  Guard* guard = guard_here();
  if (fluid_) {  // faults are refused with it
    fluid_->transfer(from.is_server() ? to.id() : from.id(), to.is_server(), bytes);
    record({start, now(), from.name(), "send", to.name(), bytes, 0.0, round_now()}, &from, &to);
    return;
  }
  if (!guard) {
    sg4::Comm::sendto(from.host(), to.host(), uint64_t(bytes));
    record({start, now(), from.name(), "send", to.name(), bytes, 0.0, round_now()}, &from, &to);
    return;
  }
  check_cut(*guard);
  auto comm = sg4::Comm::sendto_async(from.host(), to.host(), uint64_t(bytes));
  const auto left = wait_cut(*guard, *comm);
  const int64_t moved = left ? bytes - std::min(bytes, int64_t(std::llround(*left))) : bytes;
  record({start, now(), from.name(), "send", to.name(), moved, 0.0, round_now()}, &from, &to);
  guard->bytes += moved, guard->seconds += now() - start;
  if (left) throw HospitalLost{};
}

void Federation::post(Hospital& from, Hospital& to, Model model, int round) {
  check_path(from, to);  // here, where an input error reaches the caller
  // A courier actor on the sender's host carries the transfer, counted toward `round`, so the
  // sender goes on at once.
  // Under faults it is the sender's work: a crash of the sender cuts it, and the receiver
  // learns that nothing will come.
  sg4::Actor::create(from.name() + "/post-r" + std::to_string(round), from.host(),
                     [this, &from, &to, round, model = std::move(model)]() mutable {
    enter_round(round);
    Guard guard;
    if (run_guarded(from, guard, [&] { send(from, to, model); }, false)) mail_->deliver(to.id(), round, std::move(model));
    else mail_->lost(from.id(), to.id(), round);
    actor_round_.erase(long(sg4::this_actor::get_pid()));  // delivered: nothing of it is under way
  });
}

std::optional<Model> Federation::collect(Hospital& at, int round, const Hospital& from) {
  return mail_->collect(at.id(), round, from.id());
}

void Federation::enter_round(int round) { actor_round_[long(sg4::this_actor::get_pid())] = round; }

int Federation::round_now() const {
  if (actor_round_.empty() || !sg4::Actor::self()) return round_;
  auto it = actor_round_.find(long(sg4::this_actor::get_pid()));
  return it == actor_round_.end() ? round_ : it->second;
}

bool Federation::continues(int round) const {
  return round <= world_.scenario.stop.rounds && !ledger_->stopping();
}

// A train_later job: runs when the server's fold reaches its update (for_each_trained), and
// then fills in what train_on leaves out of a deferred update: weights, losses, the hospital's
// training loss in hospitals.csv.
class Federation::DeferredJob final : public DeferredTraining, public std::enable_shared_from_this<DeferredJob> {
 public:
  DeferredJob(Federation& fed, std::unique_ptr<LocalWork> work, const JobInput& job, Update shape, int round)
      : fed_(fed), work_(std::move(work)), job_(job), shape_(std::move(shape)), round_(round) {
    ++fed_.deferred_unfinished_, ++fed_.world_.perf.jobs_run_at_aggregation;
  }
  void start() override {
    if (started_) return;
    started_ = true;
    // The executor's job holds this one alive even if its update is dropped meanwhile.
    ticket_ = fed_.submit_training(*work_, job_, shared_from_this());
  }
  Update finish() override {
    if (finished_) throw std::logic_error("a deferred training job finished twice");
    start();
    TrainOutcome out = fed_.await_training(ticket_);
    finished_ = true;
    --fed_.deferred_unfinished_;
    Update u = shape_;
    u.model.weights = std::move(out.weights);
    u.train_loss = out.mean_loss;
    u.batch_losses = std::move(out.batch_losses);
    fed_.ledger_->round(round_).stats[size_t(u.hospital)].train_loss = u.train_loss;
    return u;
  }
  // Enough started ahead to keep every worker busy, or to fill a fused job.
  int ahead() const override { return std::max(fed_.world_.executor->workers(), fed_.world_.training->fuse_limit()); }

 private:
  Federation& fed_;
  std::unique_ptr<LocalWork> work_;
  JobInput job_;
  Update shape_;  // the update as train_on returned it, without weights
  int round_;
  bool started_ = false, finished_ = false;
  TrainingQueue::Ticket ticket_;
};

Update Federation::train_on(Node& where, const Model& model, LocalWork& work, const data::Indices& train,
                            const data::Indices& validation, int64_t samples, std::unique_ptr<LocalWork> later) {
  const auto& sc = world_.scenario;
  const bool real = !sc.training.timing_only;
  cohorts_->check_alone(where);
  if (const std::string why = work.needs_real_training(); !why.empty() && !real)
    throw sc.error_at("training.mode", "algorithm '" + sc.algorithm.name + "' " + why + ": it needs real training");
  const int id = where.id();
  const JobShape shape{model.spec, samples, int64_t(validation.size()), sc.training.batch_size, sc.training.local_steps};
  const bool after = real && work.charged_after_run();
  // The fold will run the job (train_later): only where nothing can cut it and its charge is
  // known before it runs.
  const bool defer = later && real && !after && !where.is_server() && !guard_here();
  TrainingQueue::Ticket ticket;
  JobInput job;
  if (real) {
    job = JobInput{&model,
                       &world_.data.train,
                       &train,
                       &validation,
                       sc.training.batch_size,
                       sc.training.local_steps,
                       {sc.training.optimizer,
                        lr_at_round(sc.training.lr_schedule, sc.training.lr, sc.training.lr_min, round_now(),
                                    sc.stop.rounds),
                        sc.training.momentum, sc.training.weight_decay},
                       job_seed(id),
                       world_.device,
                       precision_of(sc.training.precision)};
    if (!defer) ticket = submit_training(work, job);
  }
  // A job whose length it decides itself is charged once it has said how long it took.
  TrainOutcome out;
  if (after) out = await_training(ticket);
  const Charge charge = work.cost(shape, after ? &out : nullptr);
  if (real) world_.perf.training_flops += charge.flops;  // a job cut by faults still runs whole
  const double start = now();
  const double amount = compute_amount(where, charge);
  Guard* guard = where.is_server() ? nullptr : guard_here();
  if (!guard) {
    sg4::this_actor::exec_init(amount)->set_host(where.host())->wait();
  } else {
    // A job cut by faults: the real job still runs to its end (it cannot be stopped half way),
    // and its result is dropped.
    auto drop_job = [&] {
      if (real && !after) await_training(ticket);
    };
    try {
      check_cut(*guard);
    } catch (const HospitalLost&) {
      drop_job();
      throw;
    }
    auto exec = sg4::this_actor::exec_init(amount)->set_host(where.host());
    exec->start();
    if (const auto left = wait_cut(*guard, *exec)) {
      const double share = amount > 0 ? 1 - *left / amount : 0;
      record({start, now(), where.name(), "compute", "", 0, charge.flops * share, round_now()}, &where, nullptr);
      ledger_->round(round_now()).stats[size_t(id)].compute_s += now() - start;
      guard->seconds += now() - start;
      drop_job();
      throw HospitalLost{};
    }
    guard->seconds += now() - start;
  }
  record({start, now(), where.name(), where.is_server() ? "server" : "compute", "", 0, charge.flops, round_now()}, &where,
         nullptr);

  Update update{id, shape_only_model(model.spec, model.values()), samples, charge.epochs, 0.0, {}, {}};
  if (defer) {
    update.deferred = std::make_shared<DeferredJob>(*this, std::move(later), job, update, round_now());
  } else if (real) {
    if (!after) out = await_training(ticket);
    update.model.weights = std::move(out.weights);
    update.train_loss = out.mean_loss;
    update.batch_losses = std::move(out.batch_losses);
  }
  if (!where.is_server()) {
    auto& st = ledger_->round(round_now()).stats[size_t(id)];
    st.samples = samples, st.epochs += charge.epochs, st.compute_s += now() - start, st.took_part = true;
    if (real) st.train_loss = update.train_loss;  // a deferred job sets it when it runs
  }
  return update;
}

// Submitted first, then the simulated cost charged: hospitals that train in the same simulated
// window have all submitted before any of them blocks on its result.
TrainingQueue::Ticket Federation::submit_training(LocalWork& work, const JobInput& job,
                                                 std::shared_ptr<const void> keep_alive) {
  return world_.training->submit(work, job, std::move(keep_alive));
}

// A held job (training.fuse) starts, with every other held one, when it is first waited for.
TrainOutcome Federation::await_training(TrainingQueue::Ticket& ticket) {
  world_.training->launch(ticket);
  return await(ticket.result, world_.perf.wait_training_s);
}

uint64_t Federation::job_seed(int id) const {
  if (!actor_job_.empty() && sg4::Actor::self()) {
    auto it = actor_job_.find(long(sg4::this_actor::get_pid()));
    if (it != actor_job_.end()) return mix_seed(world_.scenario.seed, kAsyncTrain, uint64_t(id + 1), it->second);
  }
  return mix_seed(world_.scenario.seed, kTrain, uint64_t(id + 1), uint64_t(round_now()));
}

double Federation::compute_amount(const Node& where, const Charge& charge) const {
  if (!world_.profile) return charge.flops;
  const auto& machine =
      where.is_server() ? world_.platform.server_spec : world_.platform.hospital_specs[size_t(where.id())];
  const ComputeProfile& profile = *world_.profile;
  if (machine.profile_device.empty())
    throw world_.scenario.error_at("platform.server.profile_device",
                                   "the server trains under timing.compute: profile, so it needs a profile device");
  double seconds = 0;
  for (const auto& steps : charge.steps) {
    for (const auto& [batch, count] : steps.train_batches)
      seconds += double(count) * profile.train_step_s(machine.profile_device, steps.spec, batch);
    seconds += profile.eval_s(machine.profile_device, steps.spec, steps.eval_samples);
  }
  return seconds / machine.speed_factor * where.host()->get_speed() + charge.unprofiled_flops;
}

// Server work (aggregation, distillation) is charged in FLOPs at the server's speed in either
// compute model: a profile measures local training steps only.
void Federation::charge_server(double flops) {
  if (flops <= 0) return;
  const double start = now();
  sg4::this_actor::exec_init(flops)->set_host(server_->host())->wait();
  record({start, now(), server_->name(), "server", "", 0, flops, round_now()}, server_.get(), nullptr);
}

Update Federation::train_on_server(const Model& model, const TrainingSamples& samples, LocalWork& work) {
  return train_on(*server_, model, work, samples.indices, world_.server_split.val, samples.count);
}

Update Federation::train_on_server(const Model& model, LocalWork&& work) {
  const auto& d = world_.server_split;
  return train_on(*server_, model, work, d.train, d.val, int64_t(d.train.size()));
}

const data::HospitalSplit& Federation::server_data() const { return world_.server_split; }

void Federation::run_on_server(ServerWork& work) {
  std::future<void> job;
  if (!world_.scenario.training.timing_only)
    job = world_.executor->submit([&] {
      in_precision(precision_of(world_.scenario.training.precision), [&] { work.run(world_.data.train, world_.device); });
    });
  charge_server(work.flops());
  if (job.valid()) await(job, world_.perf.wait_training_s);
}

namespace {

// One actor per acting hospital (indices `which` of `hs`), on its host, running body(i); an
// exception is kept for the caller, then `done(i)` runs in the actor either way.
std::vector<sg4::ActorPtr> spawn_on_hospitals(const std::vector<Hospital*>& hs, const std::vector<size_t>& which,
                                              int round, std::vector<std::exception_ptr>& errors,
                                              const std::function<void(size_t)>& body,
                                              const std::function<void(size_t)>& done = {}) {
  std::vector<sg4::ActorPtr> actors;
  for (size_t i : which)
    // body and done by value: the callers' std::function temporaries die before the actors run.
    actors.push_back(sg4::Actor::create(hs[i]->name() + "/r" + std::to_string(round), hs[i]->host(),
                                        [&errors, body, done, i] {
      try {
        body(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
      if (done) done(i);
    }));
  return actors;
}

}  // namespace

void Federation::fan_out(const std::vector<Hospital*>& hs, size_t rep, const std::vector<size_t>& members,
                         const FanOut& copy) {
  const size_t rep_id = size_t(hs[rep]->id());
  cohorts_->release(int(rep_id));
  for (size_t m : members) {
    if (m == rep) continue;
    copy(rep, m);
    auto& stats = ledger_->round(round_now()).stats;
    stats[size_t(hs[m]->id())] = stats[rep_id];
  }
}

void Federation::run_parallel(const std::vector<Hospital*>& hs, const std::function<void(size_t)>& body,
                              const FanOut& copy, const std::function<void(size_t)>& drop) {
  std::vector<std::vector<size_t>> members;
  const auto which = cohorts_->acting(hs, members);
  std::vector<std::exception_ptr> errors(hs.size());
  std::vector<Guard> guards(hs.size());
  // faults.over_selection: once the K wanted have reported, the others are late and cut.
  auto w = wanted_.find(round_);
  const size_t wanted = w == wanted_.end() ? hs.size() : w->second;
  size_t reported = 0;
  auto cut_the_rest = [&] {
    // Every hospital that reports at this same instant reports before the cut: a yield returns
    // once every actor ready now has run (the tie is then decided by id, below).
    size_t seen = 0;
    do {
      seen = reported;
      sg4::this_actor::yield();
    } while (reported != seen);
    for (auto& g : guards)
      if (g.finished_at < 0 && g.lost == Loss::None) {
        g.lost = Loss::Late;
        if (g.current) g.left_when_cancelled = g.current->get_remaining(), g.current->cancel();
      }
  };
  // A failing hospital wakes any other that waits on it (collect), so the join below returns.
  auto guarded = [&](size_t i) {
    try {
      if (!run_guarded(*hs[i], guards[i], [&] { body(i); })) return;
      if (++reported == wanted && wanted < hs.size()) cut_the_rest();
    } catch (...) {
      ledger_->stop();
      throw;
    }
  };
  auto actors = spawn_on_hospitals(hs, which, round_, errors, guarded);
  for (auto& a : actors) a->join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  if (wanted < hs.size()) {
    // The first K to report, by the instant they reported, then by hospital id.
    std::vector<size_t> in;
    for (size_t i = 0; i < hs.size(); ++i)
      if (guards[i].finished_at >= 0 && guards[i].lost == Loss::None) in.push_back(i);
    std::sort(in.begin(), in.end(), [&](size_t a, size_t b) {
      return std::make_pair(guards[a].finished_at, hs[a]->id()) < std::make_pair(guards[b].finished_at, hs[b]->id());
    });
    for (size_t k = wanted; k < in.size(); ++k) {
      auto& g = guards[in[k]];
      g.lost = Loss::Late;
      ledger_->note_loss(round_now(), hs[in[k]]->id(), status_name(Loss::Late), g.bytes, g.seconds);
      drop(in[k]);
    }
  }
  for (size_t i : which) fan_out(hs, i, members[i], copy);
}

void Federation::run_as_completed(const std::vector<Hospital*>& hs, const std::function<void(size_t)>& body,
                                  const FanOut& copy, const std::function<void(size_t)>& consume) {
  std::vector<std::vector<size_t>> members;
  const auto which = cohorts_->acting(hs, members);
  auto mutex = sg4::Mutex::create();
  auto ready = sg4::ConditionVariable::create();
  std::deque<size_t> finished;
  std::vector<std::exception_ptr> errors(hs.size());
  std::vector<Guard> guards(hs.size());
  auto guarded = [&](size_t i) { run_guarded(*hs[i], guards[i], [&] { body(i); }); };
  auto actors = spawn_on_hospitals(hs, which, round_, errors, guarded, [&](size_t i) {
    std::unique_lock lock(*mutex);
    if (errors[i]) {
      finished.push_back(i);
    } else {
      fan_out(hs, i, members[i], copy);  // a cohort finishes together: its members in index order
      finished.insert(finished.end(), members[i].begin(), members[i].end());
    }
    ready->notify_one();
  });
  for (size_t consumed = 0; consumed < hs.size(); ++consumed) {
    std::unique_lock lock(*mutex);
    ready->wait(lock, [&] { return !finished.empty(); });
    const size_t i = finished.front();
    finished.pop_front();
    lock.unlock();
    if (errors[i]) {
      for (auto& a : actors) a->join();
      std::rethrow_exception(errors[i]);
    }
    consume(i);
  }
  for (auto& a : actors) a->join();
}

// ---------------------------------------------------------------- asynchronous jobs

struct ArrivalQueue::Sync {
  sg4::MutexPtr mutex = sg4::Mutex::create();
  sg4::ConditionVariablePtr arrived = sg4::ConditionVariable::create();
  std::vector<sg4::ActorPtr> actors;
};

ArrivalQueue::ArrivalQueue(Federation& fed) : fed_(fed), sync_(std::make_unique<Sync>()) {}

ArrivalQueue::~ArrivalQueue() { stop(); }

bool ArrivalQueue::busy(const Hospital& h) const {
  for (const auto& [job, at] : running_)
    if (at == &h) return true;
  return false;
}

std::vector<Hospital*> ArrivalQueue::idle() {
  std::vector<Hospital*> out;
  for (Hospital* h : fed_.hospitals())
    if (!busy(*h) && fed_.faults_->available_from(h->id(), fed_.now()) < FaultPlan::kNever) out.push_back(h);
  return out;
}

void ArrivalQueue::launch(Hospital& h, std::function<void(uint64_t)> body) {
  if (stopped_) throw std::logic_error("ArrivalQueue: a job started after stop()");
  const uint64_t job = started_++;
  running_[job] = &h;
  const auto& faults = fed_.world_.scenario.faults;
  if (faults.offline_probability > 0 || faults.deadline_s > 0 || faults.over_selection > 0)
    throw fed_.world_.scenario.error_at(faults.offline_probability > 0 ? "faults.offline_probability"
                                        : faults.deadline_s > 0         ? "faults.deadline_s"
                                                                        : "faults.over_selection",
                                        "an asynchronous schedule has no synchronous round for it to act on: "
                                        "use faults.availability_trace, crashes or faults.link_trace");
  sync_->actors.push_back(sg4::Actor::create(h.name() + "/job" + std::to_string(job), h.host(),
                                             [this, &h, job, body = std::move(body)] {
    const long pid = long(sg4::this_actor::get_pid());
    fed_.actor_job_[pid] = job;
    std::exception_ptr error;
    try {
      // Under faults a job waits until its hospital is back (never: it is lost at once).
      if (fed_.faults_->any()) {
        const double from = fed_.faults_->available_from(h.id(), fed_.now());
        if (from < FaultPlan::kNever) sg4::this_actor::sleep_until(from);
      }
      Federation::Guard guard;
      fed_.run_guarded(h, guard, [&] { body(job); });
    } catch (...) {
      error = std::current_exception();
    }
    fed_.actor_job_.erase(pid);
    // SimGrid runs one actor at a time, so this needs no lock; and no simcall comes between the
    // job's last activity and this line, so every job whose last activity ends at one instant
    // records its arrival in the scheduling step that instant wakes it in (take() relies on it).
    arrived_.push_back({fed_.now(), h.id(), job, error});
    sync_->arrived->notify_all();
  }));
}

std::optional<ArrivalQueue::Taken> ArrivalQueue::take() {
  if (running_.empty()) return std::nullopt;
  {
    std::unique_lock lock(*sync_->mutex);
    sync_->arrived->wait(lock, [&] { return !arrived_.empty(); });
  }
  // Other jobs may end at this same instant and not have run yet: a yield returns once every
  // actor ready at this instant has run, so after yields that bring nothing new, every arrival
  // of this instant is in, and the choice below follows time and hospital id alone.
  size_t seen = 0;
  do {
    seen = arrived_.size();
    sg4::this_actor::yield();
  } while (arrived_.size() != seen);
  auto first = std::min_element(arrived_.begin(), arrived_.end(), [](const Arrived& a, const Arrived& b) {
    return std::tie(a.at, a.hospital, a.job) < std::tie(b.at, b.hospital, b.job);
  });
  const Arrived a = *first;
  arrived_.erase(first);
  Hospital* h = running_.at(a.job);
  running_.erase(a.job);
  ++taken_;
  if (a.error) {
    stop();
    std::rethrow_exception(a.error);
  }
  return Taken{h, a.job};
}

void ArrivalQueue::stop() {
  if (stopped_) return;
  stopped_ = true;
  // Work under way belongs to no round that will be reported: the ledger drops it.
  if (!running_.empty()) fed_.ledger_->stop();
  for (auto& actor : sync_->actors) actor->join();
  sync_->actors.clear();
}

// ---------------------------------------------------------------- rounds

bool Federation::done(int round) {
  round_ = round;
  round_started_ = now();
  if (ledger_->done(round, now())) return true;
  const int every = world_.scenario.output.checkpoint_every;
  if (every > 0 && round > 1 && (round - 1) % every == 0 && round - 1 != resumed_round_) write_checkpoint(round - 1);
  return false;
}

// ---------------------------------------------------------------- checkpoints

void Federation::set_checkpoints(std::string path, std::function<std::vector<int64_t>()> output_sizes,
                                 const StateReader* resume_from) {
  checkpoint_path_ = std::move(path);
  output_sizes_ = std::move(output_sizes);
  resume_from_ = resume_from;
}

int Federation::first_round(std::vector<Kept> state) {
  if (kept_) throw std::logic_error("first_round called twice");
  kept_.emplace(std::move(state));
  if (!resume_from_) return 1;
  const StateReader& in = *resume_from_;
  const auto& sc = world_.scenario;
  if (in.text("algorithm") != sc.algorithm.name)
    throw InputError(in.path(), 0, "algorithm", "the checkpoint is of algorithm '" + in.text("algorithm") +
                                                    "', the scenario runs '" + sc.algorithm.name + "'");
  if (!ledger_->untouched() || now() > 0)
    throw std::logic_error("first_round must come before any simulated activity");
  // Nothing runs until the checkpoint's instant; every host then continues from its meter.
  sg4::this_actor::sleep_until(in.real("clock"));
  energy_->restore({in.reals("energy.joules"), in.reals("energy.since")});
  ledger_->restore(in);
  for (const auto& k : *kept_) k.load(in);
  resumed_round_ = int(in.integer("round"));
  round_ = resumed_round_;
  return resumed_round_ + 1;
}

void Federation::write_checkpoint(int round) {
  const auto& sc = world_.scenario;
  check_checkpointable(round);
  if (!ledger_->can_checkpoint() || !actor_round_.empty())
    throw std::logic_error("checkpoint of round " + std::to_string(round) + " while work is under way");
  StateWriter out;
  out.put("algorithm", sc.algorithm.name);
  out.put("round", int64_t(round));
  out.put("clock", now());
  const auto meters = energy_->readings();
  out.put("energy.joules", meters.joules);
  out.put("energy.since", meters.since);
  ledger_->save(out);
  out.put("outputs.sizes", output_sizes_());
  for (const auto& k : *kept_) k.save(out);
  out.save(checkpoint_path_);
  crash_point("checkpoint-written");
}

void Federation::end_round(int round, const Model& global) { end_round(round, global, {}); }

// ---------------------------------------------------------------- faults

bool Federation::run_guarded(Hospital& h, Guard& guard, const std::function<void()>& body, bool counts_update) {
  if (!faults_->any()) {
    body();
    return true;
  }
  const int round = round_now();
  auto lose = [&] {
    if (counts_update) {
      ledger_->note_loss(round, h.id(), status_name(guard.lost), guard.bytes, guard.seconds);
      mail_->lost(h.id(), round);  // whoever waits for its posts goes on without them
    } else {
      ledger_->waste(round, guard.bytes, guard.seconds);
    }
    return false;
  };
  if ((guard.lost = faults_->unavailable(h.id(), round, now())) != Loss::None) return lose();
  const auto cut = faults_->next_cut(h.id(), now());
  guard.cut_at = cut.at, guard.cut_why = cut.why;
  if (const double d = world_.scenario.faults.deadline_s; d > 0 && round_started_ + d < guard.cut_at)
    guard.cut_at = round_started_ + d, guard.cut_why = Loss::Late;
  const long pid = long(sg4::this_actor::get_pid());
  if (!guards_.emplace(pid, &guard).second)
    throw std::logic_error("Federation: a hospital's work started inside another's (visit inside parallel or visit)");
  try {
    body();
  } catch (const HospitalLost&) {
  } catch (...) {
    guards_.erase(pid);
    throw;
  }
  guards_.erase(pid);
  if (guard.lost != Loss::None) return lose();
  guard.finished_at = now();
  return true;
}

Federation::Guard* Federation::guard_here() {
  if (guards_.empty() || !sg4::Actor::self()) return nullptr;
  auto it = guards_.find(long(sg4::this_actor::get_pid()));
  return it == guards_.end() ? nullptr : it->second;
}

void Federation::check_cut(Guard& guard) {
  if (guard.lost == Loss::None && now() >= guard.cut_at) guard.lost = guard.cut_why;
  if (guard.lost != Loss::None) throw HospitalLost{};
}

std::optional<double> Federation::wait_cut(Guard& guard, sg4::Activity& a) {
  // wait_any_for leaves the activity running at its timeout (a plain wait_for would end it),
  // so what it has left can still be read before it is cancelled.
  guard.current = &a;
  try {
    const double timeout = guard.cut_at == FaultPlan::kNever ? -1.0 : std::max(0.0, guard.cut_at - now());
    sg4::Activity::wait_any_for({sg4::ActivityPtr(&a)}, timeout);
  } catch (const simgrid::Exception&) {  // cancelled by the round: late (cut_the_rest)
  }
  guard.current = nullptr;
  if (a.get_state() == sg4::Activity::State::FINISHED) return std::nullopt;
  double left = guard.left_when_cancelled;
  if (a.get_state() != sg4::Activity::State::CANCELED) {
    left = a.get_remaining();
    a.cancel();
  }
  if (guard.lost == Loss::None) guard.lost = guard.cut_why;
  return std::max(0.0, left);
}

// faults.link_trace on the hospital's access links (<name>_up, <name>_down, as the star and
// the example platforms name them): a daemon actor sets each step's bandwidth (the link's own
// times the factor) and latency at its instant. SimGrid's profiles would do the same but can
// only be set before a link is sealed, which an XML platform's are once loaded.
void Federation::apply_link_trace() {
  for (const auto& h : hospitals_) {
    const auto& steps = faults_->link_steps(h->id());
    if (steps.empty()) continue;
    std::vector<sg4::Link*> links;
    for (const char* side : {"_up", "_down"}) {
      sg4::Link* link = sg4::Link::by_name_or_null(h->name() + side);
      if (!link)
        throw world_.scenario.error_at("faults.link_trace", "hospital " + h->name() + " has no access link named " +
                                                                h->name() + side +
                                                                " (an XML platform must name its links so)");
      links.push_back(link);
    }
    std::vector<double> peak;
    for (auto* l : links) peak.push_back(l->get_bandwidth());
    sg4::Actor::create(h->name() + "/link-trace", server_->host(), [steps, links, peak] {
      for (const auto& s : steps) {
        sg4::this_actor::sleep_until(s.time_s);
        for (size_t i = 0; i < links.size(); ++i) {
          links[i]->set_bandwidth(peak[i] * s.bandwidth_factor);
          if (s.latency_s) links[i]->set_latency(*s.latency_s);
        }
      }
    })->daemonize();
  }
}

void Federation::check_checkpointable(int round) const {
  const auto& sc = world_.scenario;
  if (!kept_ && sc.output.checkpoint_every > 0 && round % sc.output.checkpoint_every == 0)
    throw sc.error_at("output.checkpoint_every",
                      "algorithm '" + sc.algorithm.name +
                          "' never stops at a point where nothing is under way (a pipelined or asynchronous "
                          "schedule), so it cannot be checkpointed: remove the key");
}

void Federation::check_round_closed(int round) const {
  // A train_later update left out of the aggregate would leave its hospital's loss unreported.
  if (deferred_unfinished_ > 0)
    throw std::logic_error("round " + std::to_string(round) + " ends with " + std::to_string(deferred_unfinished_) +
                           " train_later update(s) never aggregated");
  check_checkpointable(round);
}

void Federation::end_round(int round, const Model& global, const std::map<std::string, Model>& tier_models) {
  check_round_closed(round);
  ledger_->report(round, evaluator_->global(round, now(), global, tier_models), now(), energy_j(), world_.spec.num_classes);
}

void Federation::end_round(int round, const std::vector<Model>& local_models) {
  check_round_closed(round);
  ledger_->report(round, evaluator_->local(round, now(), local_models), now(), energy_j(), world_.spec.num_classes);
}

void Federation::note(int round, const std::string& column, std::string value) {
  ledger_->note(round, -1, column, std::move(value));
}

void Federation::note(int round, const Hospital& h, const std::string& column, std::string value) {
  ledger_->note(round, h.id(), column, std::move(value));
}

void Federation::note_staleness(const Hospital& h, int versions) {
  auto& staleness = ledger_->round(round_now()).stats[size_t(h.id())].staleness;
  staleness = staleness ? std::max(*staleness, versions) : versions;
}

double Federation::energy_j() { return energy_->total_j(now()); }

RunSummary Federation::finish(std::vector<std::pair<std::string, std::string>> versions) {
  std::optional<Arithmetic> arithmetic;
  if (!world_.scenario.training.timing_only)
    arithmetic = Arithmetic{world_.device == ComputeDevice::Cuda ? "cuda" : "cpu", world_.perf.threads_per_worker,
                            world_.scenario.training.precision, world_.scenario.training.deterministic,
                            world_.scenario.training.fuse};
  return ledger_->finish(now(), energy_j(), std::move(versions), std::move(arithmetic));
}

}  // namespace fedgrid

#include "sim/engine/federation.hpp"

#include <simgrid/plugins/energy.h>
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <set>

#include "data/rng.hpp"
#include "sim/core/input_error.hpp"
#include "sim/jobs/metrics.hpp"
#include "sim/core/seed_streams.hpp"
#include "sim/jobs/compute.hpp"
#include "sim/engine/world.hpp"

namespace fedgrid {
namespace sg4 = simgrid::s4u;

namespace {

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

using namespace seed_streams;

struct HospitalStats {
  int64_t samples = 0;
  int epochs = 0;
  std::optional<double> train_loss;
  double compute_s = 0, comm_s = 0;
  int64_t bytes_up = 0, bytes_down = 0;
  bool took_part = false;
};

}  // namespace

// What a round has done so far: passed on when the round is reported, dropped when it ended
// after stop.sim_time_budget_s (then the run's figures stop at the last round that fit).
struct RoundState {
  std::vector<HospitalStats> stats;  // by hospital id
  std::vector<Activity> activities;
  int64_t bytes_up = 0, bytes_down = 0, bytes_peer = 0, messages = 0;
};

struct Federation::Impl {
  std::vector<std::string> tiers;    // present among hospitals, in report order
  std::vector<int64_t> acting_for;   // by hospital id: its cohort's size while it acts for it, else 0
  size_t hospitals = 0;
  // By round: one under way in lock-step schedules, several while a pipelined one runs.
  std::map<int, RoundState> rounds;
  RoundState& round(int r) {
    auto& state = rounds[r];
    if (state.stats.empty()) state.stats.resize(hospitals);
    return state;
  }
  std::map<long, int> actor_round;  // actors that run their own rounds (enter_round), by pid
  // Peer-to-peer models in flight or delivered, by (receiver id, round).
  std::map<std::pair<int, int>, Model> inbox;
  sg4::MutexPtr inbox_mutex;
  sg4::ConditionVariablePtr delivered;
  void open_inbox() {
    if (!inbox_mutex) inbox_mutex = sg4::Mutex::create(), delivered = sg4::ConditionVariable::create();
  }
  RunSummary summary;
  bool target_reached = false;
  bool over_budget = false;
  bool stopping = false;  // a stop condition was met: pipelined loops end, waits return empty
};

// ---------------------------------------------------------------- hospitals

Update Hospital::train(const Model& model, LocalWork& work) {
  return fed_->train_on(*this, model, work, split_->train, split_->val, train_samples_);
}

int64_t Hospital::raw_data_bytes() const {
  const auto& shape = fed_->world_.data.train.shape;
  return train_samples() * (shape.pixels() + 1);
}

// ---------------------------------------------------------------- set-up

Federation::Federation(World& world, std::vector<Observer*> observers)
    : impl_(std::make_unique<Impl>()), world_(world), observers_(std::move(observers)) {
  const auto& p = world.platform;
  server_.reset(new Node(-1, p.server_spec.name, p.server_spec.tier, p.server));
  for (size_t i = 0; i < p.hospitals.size(); ++i)
    hospitals_.emplace_back(new Hospital(this, int(i), p.hospital_specs[i].name, p.hospital_specs[i].tier,
                                         p.hospitals[i], &world.splits[i], world.train_samples(i)));
  impl_->hospitals = hospitals_.size();
  impl_->acting_for.assign(hospitals_.size(), 0);

  // Tiers present among hospitals, in catalog order, then any only an XML platform names.
  std::set<std::string> present;
  for (const auto& h : hospitals_) present.insert(h->tier());
  for (const auto& t : world.catalog.tiers)
    if (present.count(t.name)) impl_->tiers.push_back(t.name);
  for (const auto& h : hospitals_)
    if (std::find(impl_->tiers.begin(), impl_->tiers.end(), h->tier()) == impl_->tiers.end())
      impl_->tiers.push_back(h->tier());

  RunInfo info{world.scenario.name, world.scenario.algorithm.name, world.scenario.seed, impl_->tiers, {}};
  info.hosts.push_back(server_->name());
  for (const auto& h : hospitals_) info.hosts.push_back(h->name());
  for (auto* o : observers_) o->on_start(info);

  auto& s = impl_->summary;
  s.scenario = world.scenario.name;
  s.algorithm = world.scenario.algorithm.name;
  s.seed = world.scenario.seed;
  s.target_accuracy = world.scenario.stop.target_accuracy;
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
  const size_t k = std::clamp<size_t>(size_t(std::llround(fraction * double(all.size()))), 1, all.size());
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

const std::vector<std::string>& Federation::tiers() const { return impl_->tiers; }

models::ModelSpec Federation::hospital_spec(const Hospital& h) const { return world_.hospital_specs[size_t(h.id())]; }

Model Federation::init_hospital_model(const Hospital& h) const {
  const auto spec = hospital_spec(h);
  if (world_.scenario.training.timing_only) return shape_only_model(spec, models::model_cost(spec).state_values);
  return Model{spec, world_.initial_weights_of(spec)};
}

double Federation::now() const { return sg4::Engine::get_clock(); }

// ---------------------------------------------------------------- activities

int64_t Federation::multiplicity(const Node* node) const {
  if (!node || node->is_server()) return 1;
  return std::max<int64_t>(1, impl_->acting_for[size_t(node->id())]);
}

void Federation::check_alone(const Node& node) const {
  if (node.is_server() || !world_.scenario.timing.cohorts) return;
  const size_t id = size_t(node.id());
  if (world_.platform.cohort_size[id] > 1 && impl_->acting_for[id] == 0)
    throw world_.scenario.error_at(
        "timing.cohorts", "hospital '" + node.name() + "' acted on its own, outside a parallel step of its whole cohort; "
                          "this algorithm needs timing.cohorts: false");
}

void Federation::record(const Activity& activity, const Node* from, const Node* to) {
  auto& im = *impl_;
  Activity a = activity;
  const int64_t k = std::max(multiplicity(from), multiplicity(to));
  // A cohort's activity is one row standing for k hospitals: "weak-1+9" = weak-1 and 9 more.
  auto label = [](const Node* n, int64_t m) { return m > 1 ? n->name() + "+" + std::to_string(m - 1) : n->name(); };
  if (from) a.host = label(from, multiplicity(from));
  if (to) a.peer = label(to, multiplicity(to));
  auto& state = im.round(a.round);
  if (a.kind == "send") {
    state.messages += k;
    if (from->is_server()) state.bytes_down += a.bytes * k;
    else if (to->is_server()) state.bytes_up += a.bytes * k;
    else state.bytes_peer += a.bytes * k;
    if (!from->is_server()) {
      auto& st = state.stats[size_t(from->id())];
      st.bytes_up += a.bytes, st.comm_s += a.end_s - a.start_s, st.took_part = true;
    }
    if (!to->is_server()) {
      auto& st = state.stats[size_t(to->id())];
      st.bytes_down += a.bytes, st.comm_s += a.end_s - a.start_s, st.took_part = true;
    }
  }
  state.activities.push_back(std::move(a));
}

void Federation::send(Node& from, Node& to, const Model& model) { send_bytes(from, to, model.payload_bytes()); }

void Federation::check_route(const Node& from, const Node& to) const {
  check_alone(from), check_alone(to);
  if (world_.scenario.timing.cohorts && !from.is_server() && !to.is_server())
    throw world_.scenario.error_at("timing.cohorts", "cohorts model traffic to and from the server only; '" +
                                                         from.name() + "' sent to '" + to.name() + "'");
}

void Federation::send_bytes(Node& from, Node& to, int64_t bytes) {
  if (&from == &to) return;  // nothing crosses a network
  check_route(from, to);
  const double start = now();
  sg4::Comm::sendto(from.host(), to.host(), uint64_t(bytes));
  record({start, now(), from.name(), "send", to.name(), bytes, 0.0, round_now()}, &from, &to);
}

void Federation::post(Hospital& from, Hospital& to, Model model, int round) {
  check_route(from, to);  // here, where an input error reaches the caller
  impl_->open_inbox();
  // A courier actor on the sender's host carries the transfer, counted toward `round`, so the
  // sender goes on at once.
  sg4::Actor::create(from.name() + "/post-r" + std::to_string(round), from.host(),
                     [this, &from, &to, round, model = std::move(model)]() mutable {
    enter_round(round);
    send(from, to, model);
    std::unique_lock lock(*impl_->inbox_mutex);
    impl_->inbox.insert_or_assign({to.id(), round}, std::move(model));
    impl_->delivered->notify_all();
  });
}

std::optional<Model> Federation::collect(Hospital& at, int round) {
  auto& im = *impl_;
  im.open_inbox();
  std::unique_lock lock(*im.inbox_mutex);
  const std::pair<int, int> key{at.id(), round};
  im.delivered->wait(lock, [&] { return im.stopping || im.inbox.count(key); });
  auto it = im.inbox.find(key);
  if (it == im.inbox.end()) return std::nullopt;
  Model model = std::move(it->second);
  im.inbox.erase(it);
  return model;
}

void Federation::enter_round(int round) { impl_->actor_round[long(sg4::this_actor::get_pid())] = round; }

int Federation::round_now() const {
  if (impl_->actor_round.empty() || !sg4::Actor::self()) return round_;
  auto it = impl_->actor_round.find(long(sg4::this_actor::get_pid()));
  return it == impl_->actor_round.end() ? round_ : it->second;
}

bool Federation::continues(int round) const {
  return round <= world_.scenario.stop.rounds && !impl_->stopping;
}

void Federation::stop_everyone() {
  impl_->stopping = true;
  if (impl_->delivered) impl_->delivered->notify_all();
}

Update Federation::train_on(Node& where, const Model& model, LocalWork& work, const data::Indices& train,
                            const data::Indices& validation, int64_t samples) {
  const auto& sc = world_.scenario;
  const bool real = !sc.training.timing_only;
  check_alone(where);
  if (const std::string why = work.needs_real_training(); !why.empty() && !real)
    throw sc.error_at("training.mode", "algorithm '" + sc.algorithm.name + "' " + why + ": it needs real training");
  const int id = where.id();
  const JobShape shape{model.spec, samples, int64_t(validation.size()), sc.training.batch_size, sc.training.local_steps};
  std::future<TrainOutcome> future;
  if (real) {
    const JobInput job{&model,
                       &world_.data.train,
                       &train,
                       &validation,
                       sc.training.batch_size,
                       sc.training.local_steps,
                       {sc.training.optimizer, sc.training.lr, sc.training.momentum, sc.training.weight_decay},
                       mix_seed(sc.seed, kTrain, uint64_t(id + 1), uint64_t(round_now())),
                       world_.device};
    // Submit first, then charge the simulated cost: hospitals that train in the same simulated
    // window have all submitted before any of them blocks on its result.
    future = world_.executor->submit([&work, job] { return work.run(job); });
  }
  // A job whose length it decides itself is charged once it has said how long it took.
  TrainOutcome out;
  const bool after = real && work.charged_after_run();
  if (after) out = await(future, world_.perf.wait_training_s);
  const Charge charge = work.cost(shape, after ? &out : nullptr);
  const double start = now();
  sg4::this_actor::exec_init(charge.flops)->set_host(where.host())->wait();
  record({start, now(), where.name(), where.is_server() ? "server" : "compute", "", 0, charge.flops, round_now()}, &where,
         nullptr);

  Update update{id, shape_only_model(model.spec, model.values()), samples, charge.epochs, 0.0, {}};
  if (real) {
    if (!after) out = await(future, world_.perf.wait_training_s);
    update.model.weights = std::move(out.weights);
    update.train_loss = out.mean_loss;
    update.batch_losses = std::move(out.batch_losses);
  }
  if (!where.is_server()) {
    auto& st = impl_->round(round_now()).stats[size_t(id)];
    st.samples = samples, st.epochs += charge.epochs, st.compute_s += now() - start, st.took_part = true;
    if (real) st.train_loss = update.train_loss;
  }
  return update;
}

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
    job = world_.executor->submit([&] { work.run(world_.data.train, world_.device); });
  charge_server(work.flops());
  if (job.valid()) await(job, world_.perf.wait_training_s);
}

TrainingSamples Federation::pooled_train_samples() const {
  TrainingSamples pool;
  for (const auto& s : world_.splits) pool.indices.insert(pool.indices.end(), s.train.begin(), s.train.end());
  std::sort(pool.indices.begin(), pool.indices.end());
  for (const auto& h : hospitals_) pool.count += h->train_samples();
  return pool;
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

std::vector<size_t> Federation::acting(const std::vector<Hospital*>& hs, std::vector<std::vector<size_t>>& members) {
  members.assign(hs.size(), {});
  std::vector<size_t> out;
  if (!world_.scenario.timing.cohorts) {  // everyone acts for themselves (even listed twice)
    for (size_t i = 0; i < hs.size(); ++i) out.push_back(i), members[i] = {i};
    return out;
  }
  const auto& p = world_.platform;
  std::map<int, size_t> acting_index;  // representative id -> index in hs acting for its cohort
  for (size_t i = 0; i < hs.size(); ++i) {
    auto [it, first] = acting_index.emplace(p.representative[size_t(hs[i]->id())], i);
    if (first) out.push_back(i);
    members[it->second].push_back(i);
  }
  for (size_t i : out) {
    const int size = p.cohort_size[size_t(hs[i]->id())];
    if (int(members[i].size()) != size)
      throw world_.scenario.error_at(
          "timing.cohorts", "a parallel step took " + std::to_string(members[i].size()) + " of the " +
                                std::to_string(size) + " hospitals of " + hs[i]->name() +
                                "'s cohort (e.g. algorithm.fraction < 1); cohorts act whole: set timing.cohorts: false");
    impl_->acting_for[size_t(hs[i]->id())] = int64_t(members[i].size());
  }
  return out;
}

void Federation::fan_out(const std::vector<Hospital*>& hs, size_t rep, const std::vector<size_t>& members,
                         const FanOut& copy) {
  const size_t rep_id = size_t(hs[rep]->id());
  impl_->acting_for[rep_id] = 0;
  for (size_t m : members) {
    if (m == rep) continue;
    copy(rep, m);
    auto& stats = impl_->round(round_now()).stats;
    stats[size_t(hs[m]->id())] = stats[rep_id];
  }
}

void Federation::run_parallel(const std::vector<Hospital*>& hs, const std::function<void(size_t)>& body,
                              const FanOut& copy) {
  std::vector<std::vector<size_t>> members;
  const auto which = acting(hs, members);
  std::vector<std::exception_ptr> errors(hs.size());
  // A failing hospital wakes any other that waits on it (collect), so the join below returns.
  auto guarded = [&](size_t i) {
    try {
      body(i);
    } catch (...) {
      stop_everyone();
      throw;
    }
  };
  auto actors = spawn_on_hospitals(hs, which, round_, errors, guarded);
  for (auto& a : actors) a->join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  for (size_t i : which) fan_out(hs, i, members[i], copy);
}

void Federation::run_as_completed(const std::vector<Hospital*>& hs, const std::function<void(size_t)>& body,
                                  const FanOut& copy, const std::function<void(size_t)>& consume) {
  std::vector<std::vector<size_t>> members;
  const auto which = acting(hs, members);
  auto mutex = sg4::Mutex::create();
  auto ready = sg4::ConditionVariable::create();
  std::deque<size_t> finished;
  std::vector<std::exception_ptr> errors(hs.size());
  auto actors = spawn_on_hospitals(hs, which, round_, errors, body, [&](size_t i) {
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

// ---------------------------------------------------------------- rounds

bool Federation::done(int round) {
  round_ = round;
  const auto& stop = world_.scenario.stop;
  auto& reason = impl_->summary.stop_reason;
  if (!reason.empty()) return true;  // already decided (a round ran past the time budget)
  if (impl_->target_reached) reason = "target_accuracy";
  else if (round > stop.rounds) reason = "rounds";
  else if (stop.sim_time_budget_s && now() >= *stop.sim_time_budget_s) reason = "sim_time_budget";
  return !reason.empty();
}

bool Federation::evaluate_now(int round) const {
  const auto& sc = world_.scenario;
  const bool last = round >= sc.stop.rounds || (sc.stop.sim_time_budget_s && now() >= *sc.stop.sim_time_budget_s);
  return last || round % sc.output.eval_every == 0;
}

std::optional<double> Federation::surrogate_accuracy(int round) const {
  return world_.surrogate ? world_.surrogate->at(round) : std::nullopt;
}

// One round's evaluation. Per hospital: its model on its own test split ("local test"), and
// with local models on every hospital's test split, each weighted equally ("global test",
// FedSKD's Sec. III-B); one global model scores the same on both.
struct Federation::Scores {
  std::optional<double> accuracy, loss, auc;
  std::vector<int64_t> confusion;
  std::vector<std::optional<double>> accuracy_of, auc_of, global_accuracy_of, global_auc_of;  // by hospital
  std::map<std::string, std::optional<double>> tier_model_accuracy;
};

void Federation::end_round(int round, const Model& global) { end_round(round, global, {}); }

void Federation::end_round(int round, const Model& global, const std::map<std::string, Model>& tier_models) {
  Scores sc;
  const size_t n = hospitals_.size();
  sc.accuracy_of.resize(n), sc.auc_of.resize(n), sc.global_accuracy_of.resize(n), sc.global_auc_of.resize(n);
  auto model_of = [&](const std::string& tier) -> const Model& {
    auto it = tier_models.find(tier);
    return it == tier_models.end() ? global : it->second;
  };
  if (world_.scenario.training.timing_only) {
    sc.accuracy = surrogate_accuracy(round);
    for (const auto& t : impl_->tiers) sc.tier_model_accuracy[t] = tier_models.count(t) ? std::nullopt : sc.accuracy;
  } else if (evaluate_now(round)) {
    const auto t0 = std::chrono::steady_clock::now();
    auto& ex = *world_.executor;
    auto on_test_set = [&](const Model& m) {
      return ex.submit([&] { return run_evaluation(m.spec, m.weights, world_.data.test, nullptr, world_.device); });
    };
    auto global_eval = on_test_set(global);
    // A tier holding the global model itself (HeteroFL's full-width tier) is scored once.
    auto is_global = [&](const Model& m) { return m.spec == global.spec && m.weights == global.weights; };
    std::map<std::string, std::future<EvalOutcome>> tier_evals;
    for (const auto& t : impl_->tiers)
      if (tier_models.count(t) && !is_global(tier_models.at(t))) tier_evals.emplace(t, on_test_set(tier_models.at(t)));
    std::vector<std::future<EvalOutcome>> local;
    for (const auto& h : hospitals_)
      local.push_back(ex.submit([&, split = &h->split(), m = &model_of(h->tier())] {
        return run_evaluation(m->spec, m->weights, world_.data.train, &split->test, world_.device);
      }));
    EvalOutcome g = global_eval.get();
    sc.accuracy = g.accuracy, sc.loss = g.loss, sc.auc = g.auc;
    sc.confusion = std::move(g.confusion);
    for (const auto& t : impl_->tiers)
      sc.tier_model_accuracy[t] = tier_evals.count(t) ? tier_evals.at(t).get().accuracy : g.accuracy;
    for (size_t i = 0; i < n; ++i) {
      EvalOutcome e = local[i].get();
      if (e.samples) sc.accuracy_of[i] = e.accuracy, sc.auc_of[i] = e.auc;
    }
    // The global test: each tier's model on every hospital's split, each weighted equally (one
    // global model: the mean over the splits, already scored).
    std::map<std::string, std::pair<std::vector<std::optional<double>>, std::vector<std::optional<double>>>> on_all;
    for (const auto& t : impl_->tiers) {
      if (!world_.scenario.output.global_test && tier_models.count(t)) continue;
      auto& [acc, auc] = on_all[t];
      std::vector<std::future<EvalOutcome>> cross(n);
      const Model& m = model_of(t);
      for (size_t j = 0; j < n; ++j)
        if (&model_of(hospitals_[j]->tier()) != &m)
          cross[j] = ex.submit([&, split = &hospitals_[j]->split()] {
            return run_evaluation(m.spec, m.weights, world_.data.train, &split->test, world_.device);
          });
      for (size_t j = 0; j < n; ++j) {
        if (!cross[j].valid()) {
          acc.push_back(sc.accuracy_of[j]), auc.push_back(sc.auc_of[j]);
          continue;
        }
        EvalOutcome e = cross[j].get();
        if (e.samples) acc.push_back(e.accuracy), auc.push_back(e.auc);
      }
    }
    for (size_t i = 0; i < n; ++i)
      if (auto it = on_all.find(hospitals_[i]->tier()); it != on_all.end())
        sc.global_accuracy_of[i] = mean_present(it->second.first), sc.global_auc_of[i] = mean_present(it->second.second);
    world_.perf.evaluation_s += seconds_since(t0);
  }
  report_round(round, sc);
}

void Federation::end_round(int round, const std::vector<Model>& local_models) {
  Scores sc;
  const size_t n = hospitals_.size();
  sc.accuracy_of.resize(n), sc.auc_of.resize(n), sc.global_accuracy_of.resize(n), sc.global_auc_of.resize(n);
  if (world_.scenario.training.timing_only) {
    sc.accuracy = surrogate_accuracy(round);
  } else if (evaluate_now(round)) {
    const auto t0 = std::chrono::steady_clock::now();
    // jobs[i][j]: hospital i's model on hospital j's test split (only j = i without global_test).
    const bool cross = world_.scenario.output.global_test;
    std::vector<std::vector<std::future<EvalOutcome>>> jobs(n);
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j)
        if (cross || i == j)
          jobs[i].push_back(world_.executor->submit([&, i, j] {
            return run_evaluation(local_models[i].spec, local_models[i].weights, world_.data.train,
                                  &hospitals_[j]->split().test, world_.device);
          }));
    std::vector<std::optional<double>> losses(n);
    for (size_t i = 0; i < n; ++i) {
      std::vector<std::optional<double>> acc_on, auc_on;
      for (size_t k = 0; k < jobs[i].size(); ++k) {
        EvalOutcome e = jobs[i][k].get();
        if (!e.samples) continue;
        acc_on.push_back(e.accuracy), auc_on.push_back(e.auc);
        if (cross && k != i) continue;  // the rest is the global test
        if (sc.confusion.empty()) sc.confusion.assign(e.confusion.size(), 0);
        for (size_t c = 0; c < sc.confusion.size(); ++c) sc.confusion[c] += e.confusion[c];
        sc.accuracy_of[i] = e.accuracy, sc.auc_of[i] = e.auc, losses[i] = e.loss;
      }
      if (cross) sc.global_accuracy_of[i] = mean_present(acc_on), sc.global_auc_of[i] = mean_present(auc_on);
    }
    sc.accuracy = mean_present(sc.accuracy_of), sc.loss = mean_present(losses), sc.auc = mean_present(sc.auc_of);
    world_.perf.evaluation_s += seconds_since(t0);
  }
  report_round(round, sc);
}

double Federation::energy_j() const {
  double total = sg_host_get_consumed_energy(server_->host());
  for (const auto& h : hospitals_) total += sg_host_get_consumed_energy(h->host());
  return total;
}

void Federation::report_round(int round, const Scores& scores) {
  const auto& accuracy = scores.accuracy;
  const auto& hospital_accuracy = scores.accuracy_of;
  auto& im = *impl_;
  const auto& budget = world_.scenario.stop.sim_time_budget_s;
  RoundState state = std::move(im.round(round));
  im.rounds.erase(round);
  if (im.over_budget || (budget && now() > *budget)) {  // this round did not fit: it never happened
    im.over_budget = true;
    im.summary.stop_reason = "sim_time_budget";
    stop_everyone();
    return;
  }
  // Activities tagged with an earlier round that was never reported (before the first round)
  // go out first.
  while (!im.rounds.empty() && im.rounds.begin()->first < round) {
    for (auto& a : im.rounds.begin()->second.activities)
      for (auto* o : observers_) o->on_activity(a);
    im.rounds.erase(im.rounds.begin());
  }
  for (auto& a : state.activities)
    for (auto* o : observers_) o->on_activity(a);
  RoundReport r;
  r.round = round;
  r.sim_time_s = now();
  r.accuracy = accuracy, r.loss = scores.loss, r.auc = scores.auc;
  r.local_test_accuracy = mean_present(scores.accuracy_of), r.local_test_auc = mean_present(scores.auc_of);
  r.global_test_accuracy = mean_present(scores.global_accuracy_of);
  r.global_test_auc = mean_present(scores.global_auc_of);
  if (!scores.confusion.empty())
    if (auto m = macro_metrics(scores.confusion, world_.spec.num_classes))
      r.f1 = m->f1, r.sensitivity = m->sensitivity, r.specificity = m->specificity;
  r.bytes_up = state.bytes_up, r.bytes_down = state.bytes_down, r.bytes_peer = state.bytes_peer;
  r.messages = state.messages;
  r.energy_j = energy_j();

  std::map<std::string, std::pair<double, int>> by_tier;
  for (size_t i = 0; i < hospitals_.size(); ++i) {
    const auto& h = *hospitals_[i];
    const auto& st = state.stats[i];
    r.participants += st.took_part;
    r.epoch_transfers += st.epochs;
    r.hospitals.push_back({h.id(), h.name(), h.tier(), st.samples, st.epochs, st.train_loss, hospital_accuracy[i],
                           st.compute_s, st.comm_s, st.bytes_up, st.bytes_down, scores.auc_of[i],
                           scores.global_accuracy_of[i], scores.global_auc_of[i]});
    if (hospital_accuracy[i]) by_tier[h.tier()].first += *hospital_accuracy[i], by_tier[h.tier()].second++;
  }
  for (const auto& t : im.tiers) {
    auto it = by_tier.find(t);
    r.tier_accuracy.push_back({t, it == by_tier.end() ? std::nullopt
                                                      : std::optional<double>(it->second.first / it->second.second)});
    auto m = scores.tier_model_accuracy.find(t);
    r.tier_model_accuracy.push_back({t, m == scores.tier_model_accuracy.end() ? std::nullopt : m->second});
  }
  r.tier_gap = accuracy_gap(r.tier_model_accuracy);
  r.hospital_accuracy_std = population_std(hospital_accuracy);
  for (auto* o : observers_) o->on_round(r);

  // Run totals, then a fresh round.
  auto& s = im.summary;
  s.rounds = round;
  s.sim_time_s = r.sim_time_s;
  s.energy_j = r.energy_j;
  s.bytes_up += r.bytes_up, s.bytes_down += r.bytes_down, s.bytes_peer += r.bytes_peer, s.messages += r.messages;
  s.epoch_transfers += r.epoch_transfers;
  if (accuracy) {
    s.final_accuracy = accuracy;
    s.final_f1 = r.f1, s.final_sensitivity = r.sensitivity, s.final_specificity = r.specificity;
    if (!s.best_accuracy || *accuracy > *s.best_accuracy) s.best_accuracy = accuracy;
    s.final_tier_model_accuracy = r.tier_model_accuracy;
    s.final_tier_gap = r.tier_gap, s.final_hospital_accuracy_std = r.hospital_accuracy_std;
    s.final_auc = r.auc;
    s.final_local_test_accuracy = r.local_test_accuracy, s.final_local_test_auc = r.local_test_auc;
    s.final_global_test_accuracy = r.global_test_accuracy, s.final_global_test_auc = r.global_test_auc;
    const auto& target = world_.scenario.stop.target_accuracy;
    if (target && *accuracy >= *target && !s.time_to_target_s) {
      s.time_to_target_s = r.sim_time_s;
      im.target_reached = true;
      stop_everyone();
    }
  }
}

RunSummary Federation::finish(std::vector<std::pair<std::string, std::string>> versions) {
  auto& s = impl_->summary;
  s.versions = std::move(versions);
  // After a stop condition cut the run (time budget, target, or pipelined hospitals stopped
  // mid-round), the figures stay those of the last round reported; work under way for later
  // rounds is dropped with them.
  if (!impl_->over_budget && !impl_->stopping) {
    for (auto& [round, state] : impl_->rounds)
      for (auto& a : state.activities)
        for (auto* o : observers_) o->on_activity(a);
    s.sim_time_s = now();
    s.energy_j = energy_j();
  }
  impl_->rounds.clear();
  s.bytes_total = s.bytes_up + s.bytes_down + s.bytes_peer;
  if (s.stop_reason.empty()) s.stop_reason = "algorithm_finished";
  for (auto* o : observers_) o->on_finish(s);
  return s;
}

}  // namespace fedgrid

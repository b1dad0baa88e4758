#include "sim/engine/federation.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include "data/rng.hpp"
#include "sim/core/input_error.hpp"
#include "sim/core/seed_streams.hpp"
#include "sim/engine/actor_tags.hpp"
#include "sim/engine/arrivals.hpp"
#include "sim/engine/checkpointer.hpp"
#include "sim/engine/cohorts.hpp"
#include "sim/engine/compressed_links.hpp"
#include "sim/engine/compute_charge.hpp"
#include "sim/engine/energy_meter.hpp"
#include "sim/engine/evaluation.hpp"
#include "sim/engine/fault_guard.hpp"
#include "sim/engine/parallel_round.hpp"
#include "sim/engine/peer_mail.hpp"
#include "sim/engine/round_ledger.hpp"
#include "sim/engine/training_jobs.hpp"
#include "sim/engine/transport.hpp"
#include "sim/engine/world.hpp"

namespace fedgrid {
namespace sg4 = simgrid::s4u;

using namespace seed_streams;

namespace {

// Tiers present among hospitals, in catalog order, then any only an XML platform names.
std::vector<std::string> tiers_present(const World& world) {
  std::vector<std::string> tiers;
  std::set<std::string> present;
  for (const auto& h : world.platform.hospital_specs) present.insert(h.tier);
  for (const auto& t : world.catalog.tiers)
    if (present.count(t.name)) tiers.push_back(t.name);
  for (const auto& h : world.platform.hospital_specs)
    if (std::find(tiers.begin(), tiers.end(), h.tier) == tiers.end()) tiers.push_back(h.tier);
  return tiers;
}

}  // namespace

// ---------------------------------------------------------------- hospitals

Update Hospital::train(const Model& model, LocalWork& work) {
  return fed_->train_on(*this, model, work, split_->train, split_->val, train_samples_);
}

Update Hospital::train_on_later(const Model& model, std::unique_ptr<LocalWork> work) {
  LocalWork& w = *work;
  return fed_->train_on(*this, model, w, split_->train, split_->val, train_samples_, std::move(work));
}

// ---------------------------------------------------------------- asynchronous jobs

// The federation as asynchronous jobs see it (arrivals.hpp's JobSite): handed to Arrivals
// explicitly, so that they reach none of its members.
class Federation::Jobs final : public JobSite {
 public:
  explicit Jobs(Federation& fed) : fed_(fed) {}
  std::vector<Hospital*> hospitals() override { return fed_.hospitals(); }
  bool comes_back(const Hospital& h) const override { return back_at(h) < FaultPlan::kNever; }
  void run_job(Hospital& h, uint64_t job, const std::function<void()>& body) override {
    fed_.tags_->start_job(job);
    struct EndJob {
      ActorTags& tags;
      ~EndJob() { tags.end_job(); }
    } end{*fed_.tags_};
    // Under faults a job waits until its hospital is back (never: it is lost at once).
    if (fed_.guards_->any())
      if (const double from = back_at(h); from < FaultPlan::kNever) sg4::this_actor::sleep_until(from);
    Guard guard;
    fed_.run_guarded(h, guard, body);
  }
  double now() const override { return fed_.now(); }
  void drop_work_under_way() override { fed_.ledger_->stop(); }

 private:
  // When `h` is available from now on (now without faults; FaultPlan::kNever: never again).
  double back_at(const Hospital& h) const { return fed_.guards_->plan().available_from(h.id(), fed_.now()); }
  Federation& fed_;
};

JobSite& Federation::job_site() {
  if (!jobs_) jobs_ = std::make_unique<Jobs>(*this);
  return *jobs_;
}

// ---------------------------------------------------------------- set-up

Federation::Federation(World& world, std::vector<Observer*> observers)
    : world_(world), tiers_(tiers_present(world)), tags_(std::make_unique<ActorTags>()) {
  const auto& p = world.platform;
  server_.reset(new Node(-1, p.server_spec.name, p.server_spec.tier, p.server));
  for (size_t i = 0; i < p.hospitals.size(); ++i)
    hospitals_.emplace_back(new Hospital(this, int(i), p.hospital_specs[i].name, p.hospital_specs[i].tier,
                                         p.hospitals[i], &world.splits[i], world.train_samples(i)));
  std::vector<LedgerRow> rows;
  for (const auto& h : hospitals_) rows.push_back({h->id(), h->name(), h->tier()});
  mail_ = std::make_unique<PeerMail>();
  // The run's metric table, built once: the ledger computes it, the observers write it.
  metrics_ = std::make_shared<const RunMetrics>(world.scenario, world.round_columns, world.hospital_columns);
  ledger_ = std::make_unique<RoundLedger>(world.scenario, server_->name(), std::move(rows), tiers_, observers,
                                          [this] { mail_->close(); }, metrics_);
  guards_ = std::make_unique<FaultGuards>(world.scenario, hospitals(), *ledger_, *mail_);
  auto record = [this](const Activity& a, const Node* from, const Node* to) { this->record(a, from, to); };
  transport_ = make_transport(world, *guards_, *tags_, record);  // fluid refuses a narrow backbone here
  start_observers(observers);

  cohorts_ = std::make_unique<Cohorts>(world.scenario, world.platform, hospitals_.size());
  std::vector<EvaluatedHospital> evaluated;
  for (const auto& h : hospitals_) evaluated.push_back({h->tier(), &h->split()});
  evaluator_ = std::make_unique<Evaluator>(world, std::move(evaluated), tiers_);
  std::vector<sg4::Host*> metered{server_->host()};
  for (const auto& h : hospitals_) metered.push_back(h->host());
  energy_ = std::make_unique<EnergyMeter>(metered);
  guards_->start_daemons(server_->host(), *energy_);
  charge_ = std::make_unique<ComputeCharge>(world, *guards_, *ledger_, *tags_, record);
  training_ = std::make_unique<TrainingJobs>(world, *ledger_, *guards_, *cohorts_, *tags_, *charge_);
  parallel_ = std::make_unique<ParallelRound>(*cohorts_, *guards_, *ledger_, *tags_);
  // Chosen once, like the transport: without compression.* no send goes near a codec.
  if (world.scenario.compression.any())
    links_ = std::make_unique<CompressedLinks>(world.scenario, int64_t(hospitals_.size()));
  checkpoints_ = std::make_unique<Checkpointer>(world.scenario, *ledger_, *energy_, links_.get());
}

void Federation::start_observers(std::vector<Observer*>& observers) {
  RunInfo info;
  info.scenario = world_.scenario.name, info.algorithm = world_.scenario.algorithm.name;
  info.seed = world_.scenario.seed, info.tiers = tiers_, info.metrics = metrics_;
  info.hosts.push_back(server_->name());
  for (const auto& h : hospitals_) info.hosts.push_back(h->name());
  for (auto* o : observers) o->on_start(info);
}

Federation::~Federation() = default;

const Scenario& Federation::scenario() const { return world_.scenario; }

std::vector<Hospital*> Federation::hospitals() {
  std::vector<Hospital*> all;
  for (auto& h : hospitals_) all.push_back(h.get());
  return all;
}

size_t selected_count(double fraction, size_t hospitals) {
  return std::clamp<size_t>(size_t(std::llround(fraction * double(hospitals))), 1, hospitals);
}

std::vector<Hospital*> Federation::select(double fraction, int round) {
  auto all = hospitals();
  size_t k = selected_count(fraction, all.size());
  if (const double over = world_.scenario.faults.over_selection; over > 0) {
    // Refused at set-up (algorithms/registry.cpp, AlgorithmInfo::Traits::selects_fraction).
    if (k == all.size())
      throw std::logic_error("faults.over_selection with a draw of every hospital: the algorithm's registry entry "
                             "does not declare selects_fraction");
    parallel_->want(round, k);
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

// ---------------------------------------------------------------- models

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

// ---------------------------------------------------------------- transfers

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
  auto& state = ledger_->round(a.round);
  for (const Node* n : {from, to})  // a cohort's members take the acting hospital's figures (parallel_round.cpp)
    if (n && !n->is_server()) state.stats[size_t(n->id())].last_end_s = std::max(state.stats[size_t(n->id())].last_end_s, a.end_s);
  state.activities.push_back(std::move(a));
}

const Model& Federation::send(Node& from, Node& to, const Model& model) {
  if (&from == &to) return model;  // nothing crosses a network
  if (links_) return send_compressed(from, to, model);
  send_bytes(from, to, model.payload_bytes());
  return model;
}

// Encoded on the sender's host before the transfer, decoded on the receiver's after it; the
// network carries the encoded size. A transfer cut by faults gives its values back to the
// sender's residual (CompressedLinks::lost) and leaves the pair's reference as it was. A
// direction without a codec (uplink only, say) crosses whole and keeps the pair's reference.
const Model& Federation::send_compressed(Node& from, Node& to, const Model& model) {
  if (!links_->compresses(from, to)) {
    send_bytes(from, to, model.payload_bytes());
    links_->arrived_uncompressed(from, to, model);
    return model;
  }
  check_path(from, to);
  auto crossing = links_->encode(from, to, model);
  const int64_t k = std::max(cohorts_->multiplicity(&from), cohorts_->multiplicity(&to));
  auto& state = ledger_->round(round_now());
  state.codec_raw_bytes += crossing.raw_bytes * k, state.codec_encoded_bytes += crossing.bytes * k;
  try {
    charge_->codec(from, crossing.encode_flops, "encode");
    transport_->send(from, to, crossing.bytes);
    charge_->codec(to, crossing.decode_flops, "decode");
  } catch (const HospitalLost&) {
    links_->lost(from, to, crossing);
    throw;
  }
  return links_->arrived(from, to, std::move(crossing), model);
}

void Federation::check_path(const Node& from, const Node& to) {
  cohorts_->check_route(from, to);
  transport_->check_route(from, to);
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
  transport_->send(from, to, bytes);
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
    // With compression the receiver collects what it decoded (the encoding is charged here, at
    // the post, the decoding on the receiver's host as the post arrives).
    if (run_guarded(from, guard, [&] { model = send(from, to, model); }, false)) mail_->deliver(to.id(), round, std::move(model));
    else mail_->lost(from.id(), to.id(), round);
    tags_->leave_round();  // delivered: nothing of it is under way
  });
}

std::optional<Model> Federation::collect(Hospital& at, int round, const Hospital& from) {
  return mail_->collect(at.id(), round, from.id());
}

// ---------------------------------------------------------------- work on hospitals

void Federation::enter_round(int round) { tags_->enter_round(round); }

int Federation::round_now() const { return tags_->round(); }

bool Federation::continues(int round) const {
  return round <= world_.scenario.stop.rounds && !ledger_->stopping();
}

bool Federation::run_guarded(Hospital& h, Guard& guard, const std::function<void()>& body, bool counts_update) {
  return guards_->run(h, guard, round_now(), round_started_, body, counts_update);
}

void Federation::run_visit(Hospital& h, const std::function<void()>& body) {
  Guard guard;
  run_guarded(h, guard, body);
}

void Federation::run_parallel(const std::vector<Hospital*>& hs, const std::function<void(size_t)>& body,
                              const std::function<void(size_t, size_t)>& copy, const std::function<void(size_t)>& drop) {
  parallel_->run(hs, round_started_, body, copy, drop);
}

Update Federation::train_on(Node& where, const Model& model, LocalWork& work, const data::Indices& train,
                            const data::Indices& validation, int64_t samples, std::unique_ptr<LocalWork> later) {
  return training_->train(where, model, work, {train, validation, samples}, job_seed(where.id()), std::move(later));
}

uint64_t Federation::job_seed(int id) const {
  if (const auto job = tags_->job()) return mix_seed(world_.scenario.seed, kAsyncTrain, uint64_t(id + 1), *job);
  return mix_seed(world_.scenario.seed, kTrain, uint64_t(id + 1), uint64_t(round_now()));
}

// ---------------------------------------------------------------- work on the server

void Federation::charge_server(double flops) { charge_->server(*server_, flops); }

Update Federation::train_on_server(const Model& model, const TrainingSamples& samples, LocalWork& work) {
  return train_on(*server_, model, work, samples.indices, world_.server_split.val, samples.count);
}

Update Federation::train_on_server(const Model& model, LocalWork&& work) {
  const auto& d = world_.server_split;
  return train_on(*server_, model, work, d.train, d.val, int64_t(d.train.size()));
}

const data::HospitalSplit& Federation::server_data() const { return world_.server_split; }

void Federation::run_on_server(ServerWork& work) { training_->run_on_server(*server_, work); }

// ---------------------------------------------------------------- rounds

bool Federation::done(int round) {
  tags_->set_run_round(round);
  round_started_ = now();
  if (ledger_->done(round, now())) return true;
  checkpoints_->at_round_start(round, tags_->any_round());
  return false;
}

void Federation::set_checkpoints(std::string path, std::function<std::vector<int64_t>()> output_sizes,
                                 const StateReader* resume_from) {
  checkpoints_->set_target(std::move(path), std::move(output_sizes), resume_from);
}

int Federation::first_round(std::vector<Kept> state) {
  const int first = checkpoints_->first_round(std::move(state));
  if (first > 1) tags_->set_run_round(checkpoints_->resumed_round());
  return first;
}

void Federation::check_round_closed(int round) const {
  // A train_later update left out of the aggregate would leave its hospital's loss unreported.
  if (const int left = training_->unfinished(); left > 0)
    throw std::logic_error("round " + std::to_string(round) + " ends with " + std::to_string(left) +
                           " train_later update(s) never aggregated");
  checkpoints_->check_checkpointable(round);
}

void Federation::end_round(int round, const Model& global) { end_round(round, global, {}); }

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
                            std::string(mode_name(world_.scenario.training.precision)),
                            world_.scenario.training.deterministic, fuse_name(world_.scenario.training.fuse)};
  return ledger_->finish(now(), energy_j(), std::move(versions), std::move(arithmetic));
}

}  // namespace fedgrid

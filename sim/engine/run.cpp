#include "sim/engine/run.hpp"

#include <fmt/format.h>
#include <simgrid/s4u.hpp>
#include <simgrid/version.h>
#include <spdlog/spdlog.h>

#include <malloc.h>

#include <chrono>
#include <fstream>
#include <map>
#include <filesystem>
#include <sstream>
#include <thread>

#include "data/rng.hpp"
#include "platforms/platform_error.hpp"
#include "platforms/platform_export.hpp"
#include "platforms/platform_xml_check.hpp"
#include "platforms/roster.hpp"
#include "sim/engine/data_setup.hpp"
#include "sim/engine/faults.hpp"
#include "sim/engine/federation.hpp"
#include "sim/engine/population.hpp"
#include "sim/core/input_error.hpp"
#include "sim/engine/progress.hpp"
#include "sim/engine/recorder.hpp"
#include "sim/engine/state_file.hpp"
#include "sim/core/seed_streams.hpp"
#include "sim/jobs/compute.hpp"
#include "sim/jobs/mpi/job_exchange.hpp"
#include "sim/engine/world.hpp"

namespace fedgrid {
namespace sg4 = simgrid::s4u;

namespace {

using namespace seed_streams;

models::ModelSpec model_spec_for(const Scenario& s, const data::ImageShape& shape, int classes) {
  return {s.model.arch, shape.channels, shape.height, shape.width, classes, s.model.width_multiplier};
}

// model.<tier>: the tier's own model on the same data.
models::ModelSpec tier_spec_for(const ModelChoice& m, const models::ModelSpec& global) {
  models::ModelSpec spec = global;
  spec.arch = m.arch, spec.width_multiplier = m.width_multiplier;
  return spec;
}

// Each hospital's own model: its group's platform.hospitals[].model, else its tier's
// model.<tier>, else the global model (hospitals in id order, as hospital_population lists them).
std::vector<models::ModelSpec> hospital_specs(const Scenario& s, const World& world) {
  std::vector<models::ModelSpec> out;
  for (const auto& h : world.platform.hospital_specs) {
    auto it = world.tier_specs.find(h.tier);
    out.push_back(it == world.tier_specs.end() ? world.spec : it->second);
  }
  if (!s.platform.roster.empty() || !s.platform.xml.empty()) return out;
  size_t id = 0;
  for (size_t g = 0; g < s.platform.hospitals.size(); ++g) {
    const auto& group = s.platform.hospitals[g];
    for (int i = 0; i < group.count; ++i, ++id) {
      if (!group.model) continue;
      out[id] = tier_spec_for(*group.model, world.spec);
      try {
        models::model_cost(out[id]);
      } catch (const std::invalid_argument& e) {
        throw s.error_at("platform.hospitals[" + std::to_string(g) + "].model", e.what());
      }
    }
  }
  return out;
}

// timing.compute: profile: the profile, once every machine is known to name a device in it.
ComputeProfile load_profile(const Scenario& s, const platforms::PlatformHosts& platform) {
  ComputeProfile profile = ComputeProfile::load(s.timing.profile, "timing.profile");
  auto check = [&](const platforms::MachineSpec& m, const std::string& where_to_set) {
    if (m.profile_device.empty())
      throw s.error_at("timing.compute", "'" + m.name + "' (tier " + m.tier + ") names no profile device: set " +
                                             where_to_set + " (devices in " + s.timing.profile + ": " +
                                             profile.devices() + ")");
    if (!profile.has_device(m.profile_device))
      throw s.error_at("timing.profile", "'" + m.name + "' runs on profile device '" + m.profile_device +
                                             "', which " + s.timing.profile + " does not hold (devices: " +
                                             profile.devices() + ")");
  };
  // The server trains only in some algorithms (UniFed): its device is checked when it does.
  if (!platform.server_spec.profile_device.empty()) check(platform.server_spec, "");
  for (const auto& m : platform.hospital_specs)
    check(m, "profile_device on its hospital group, roster row or XML host, or of tier " + m.tier + " in " +
                 s.platform.tiers_file);
  return profile;
}

void configure_engine(sg4::Engine& engine, const Scenario& s) {
  // fluid: what its model mirrors; ns3: SimGrid's network carries nothing, the cheapest model will do.
  if (s.timing.network != NetworkModel::Lv08) {
    // Exact arithmetic: a transfer takes latency + size / bandwidth, nothing else.
    engine.set_config("network/model:CM02");
    engine.set_config("network/latency-factor:1");
    engine.set_config("network/bandwidth-factor:1");
    engine.set_config("network/weight-S:0");
    engine.set_config("network/TCP-gamma:0");
    engine.set_config("network/crosstraffic:0");
  }
  // LV08's factors where the scenario changes them (never set otherwise: SimGrid's own apply).
  const Scenario::Timing::Lv08 lv08 = s.timing.lv08, simgrid_lv08;
  if (s.timing.network == NetworkModel::Lv08) {
    if (lv08.latency_factor != simgrid_lv08.latency_factor)
      engine.set_config("network/latency-factor:" + fmt::format("{}", lv08.latency_factor));
    if (lv08.bandwidth_factor != simgrid_lv08.bandwidth_factor)
      engine.set_config("network/bandwidth-factor:" + fmt::format("{}", lv08.bandwidth_factor));
    if (lv08.weight_s != simgrid_lv08.weight_s) engine.set_config("network/weight-S:" + fmt::format("{}", lv08.weight_s));
  }
  // SimGrid 3.32's lazy network update dropped the access-link constraint of some concurrent
  // flows that started together (three parallel downloads: two of them finished at backbone
  // speed; seen here, tests/test_timing.cpp). Full update recomputes every share each event.
  engine.set_config("network/optim:Full");
}

// SimGrid gives every actor a stack with a guard page below it: two memory mappings per actor,
// and Linux allows a process vm.max_map_count of them (65,530 by default), so somewhat over
// 30,000 hospital actors at once abort in SimGrid ("Failed to protect stack"). Past what the
// limit allows, stacks go without guard pages: one anonymous mapping each, which the kernel
// merges with its neighbours. glibc must then map every stack on its own: by default it maps
// at most 65,536 chunks and takes the rest from the heap, where calloc zeroes each 8 MiB stack
// again on reuse (100,000 hospitals: 20 GB and 3x the time, against 3.6 GB).
void fit_actor_stacks(sg4::Engine& engine, int hospitals) {
  long max_maps = 65530;
  std::ifstream("/proc/sys/vm/max_map_count") >> max_maps;
  // Hospital actors, the couriers and timers beside them, and the process's own mappings.
  if (2L * (int64_t(hospitals) + 1000) <= max_maps - 5000) return;
  engine.set_config("contexts/guard-size:0");
  mallopt(M_MMAP_THRESHOLD, 4 << 20);  // fixed (frees no longer raise it): 8 MiB stacks stay mapped
  mallopt(M_MMAP_MAX, 1 << 24);
}

std::vector<std::pair<std::string, std::string>> versions() {
  return {{"fedgrid", FEDGRID_VERSION},
          {"simgrid", std::to_string(SIMGRID_VERSION_MAJOR) + "." + std::to_string(SIMGRID_VERSION_MINOR) + "." +
                          std::to_string(SIMGRID_VERSION_PATCH)},
          {"torch", torch_version()}};
}

// A platform file's error as the scenario's bad input (exit code 2, file, line, key).
template <class F>
auto platform_input(F&& f) {
  try {
    return f();
  } catch (const platforms::PlatformError& e) {
    throw InputError(e.file, e.line, e.key, e.message);
  }
}

// SimGrid's own log output follows fedgrid's --log-level: its info messages only from debug on
// (they describe SimGrid's configuration), its warnings and errors as fedgrid's.
std::string simgrid_threshold(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace:
    case spdlog::level::debug: return "info";
    case spdlog::level::info:
    case spdlog::level::warn: return "warning";
    case spdlog::level::err: return "error";
    default: return "critical";
  }
}

// What the scenario says of an XML platform's hosts: the server, the hospitals, their tiers.
platforms::XmlMapping xml_mapping(const Scenario& s) {
  platforms::XmlMapping m{s.platform.server_host, s.platform.server_tier, {}, {}};
  std::stringstream list(s.platform.xml_hospitals);
  for (std::string item; std::getline(list, item, ',');) {
    const auto first = item.find_first_not_of(" \t"), last = item.find_last_not_of(" \t");
    if (first != std::string::npos) m.hospitals.push_back(item.substr(first, last - first + 1));
  }
  for (const auto& rule : s.platform.xml_tiers) m.tiers.emplace_back(rule.hosts, rule.tier);
  return m;
}

// The server's tier, from the catalog (an XML platform's server may carry its own).
void check_server_tier(const Scenario& s, const platforms::TierCatalog& catalog) {
  if (!catalog.find(s.platform.server_tier) && s.platform.xml.empty())
    throw s.error_at("platform.server.tier",
                     "unknown tier '" + s.platform.server_tier + "' (known: " + catalog.names() + ")");
}

// The fault traces name hospitals: read them against the population, so that validate refuses
// what run would.
void check_fault_traces(const Scenario& s, const std::vector<platforms::MachineSpec>& machines) {
  if (!s.faults.any()) return;
  std::vector<std::string> names;
  for (const auto& m : machines) names.push_back(m.name);
  FaultPlan(s, names);
}

// What needs no platform: device and precision, the surrogate curve, the data sources, the
// model against the data's shape. set_up runs it first, then loads the platform itself once.
void check_settings(const Scenario& s) {
  if (!s.training.timing_only) {
    ComputeDevice device = ComputeDevice::Cpu;
    try {
      device = resolve_device(s.training.device);
    } catch (const std::runtime_error& e) {
      throw s.error_at("training.device", e.what());
    }
    if (s.training.precision == Precision::Bf16) {
      if (device != ComputeDevice::Cpu)
        throw s.error_at("training.precision", "bf16 is built for the CPU (autocast on CPU); use training.device: cpu");
      if (!cpu_has_bf16())
        throw s.error_at("training.precision",
                         "bf16 needs a CPU with AVX-512 BF16 (this one lacks it: LibTorch would emulate bf16, "
                         "slower than fp32); use fp32");
    }
  }
  if (!s.training.surrogate.empty()) AccuracyCurve::load(s.training.surrogate);
  check_data_sources(s);
  if (s.data.dataset == "synthetic" && s.data.tasks.empty()) {
    const auto& d = s.data;
    const int side_h = d.resize.value_or(d.synthetic_height), side_w = d.resize.value_or(d.synthetic_width);
    try {
      models::model_cost(model_spec_for(s, {d.synthetic_channels, side_h, side_w}, d.synthetic_classes));
    } catch (const std::invalid_argument& e) {
      throw s.error_at("model.arch", e.what());
    }
  }
}

// Everything check_scenario reads without building a run: the settings, then the platform's
// inputs (the population with its rosters and empirical CSVs, or the XML) and the fault traces.
void check_platform_and_data(const Scenario& s) {
  const auto catalog = platforms::load_tier_catalog(s.platform.tiers_file);
  check_server_tier(s, catalog);
  if (s.platform.xml.empty()) check_fault_traces(s, hospital_population(s, catalog).machines);
  else platforms::check_platform_xml(s.platform.xml);
  check_settings(s);
}

// Everything a run loads before its first simulated event: SimGrid's engine and platform,
// the data, the compute profile, the models' shapes. `fedgrid validate` stops here.
struct SetUp {
  std::unique_ptr<sg4::Engine> engine;
  World world;
  int hospitals = 0;
};

// SimGrid's engine, with fedgrid's log threshold and the user's --cfg arguments.
std::unique_ptr<sg4::Engine> start_engine(const Scenario& s, const RunOptions& options) {
  std::vector<std::string> args{"fedgrid", "--log=root.thresh:" + simgrid_threshold(spdlog::get_level())};
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer cannot follow SimGrid's default (raw) context switches; thread contexts
  // are clean under it (notes in docs/developer/testing.md, "Sanitizers"). Only the sanitizer
  // build (./dev.sh sanitize) compiles this; simulated results do not depend on the context
  // factory.
  args.push_back("--cfg=contexts/factory:thread");
#endif
  for (const auto& a : options.simgrid_args) args.push_back(a);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = int(argv.size());
  auto engine = std::make_unique<sg4::Engine>(&argc, argv.data());
  configure_engine(*engine, s);
  return engine;
}

// The hospitals' machines (platform.hospitals; none from a user's XML platform, which is loaded
// whole here) and their sample counts. Returns the machines the star is built from.
std::vector<platforms::MachineSpec> load_hospitals(World& world) {
  const Scenario& s = world.scenario;
  if (!s.platform.xml.empty()) {
    world.platform = platforms::load_xml_platform(s.platform.xml, xml_mapping(s), world.catalog);
    if (s.data.samples_per_hospital) world.sample_counts.assign(world.platform.hospitals.size(), *s.data.samples_per_hospital);
    return {};
  }
  auto population = hospital_population(s, world.catalog);
  world.sample_counts = std::move(population.samples);
  check_fault_traces(s, population.machines);
  return std::move(population.machines);
}

// The star around the hospitals, built once the data is split: with cohorts the sample counts
// decide who is identical.
void build_star(World& world, const std::vector<platforms::MachineSpec>& machines) {
  const Scenario& s = world.scenario;
  std::vector<int> representative;
  if (s.timing.cohorts) {
    std::vector<int64_t> samples;
    for (size_t h = 0; h < world.splits.size(); ++h) samples.push_back(world.train_samples(h));
    representative = platforms::group_cohorts(machines, samples);
  }
  auto server = platforms::machine_from_tier("server", *world.catalog.find(s.platform.server_tier));
  world.platform = platforms::build_star_platform(
      server, machines, {s.platform.backbone_bandwidth_bps, s.platform.backbone_latency_s}, representative);
}

// The models' shapes and costs (global, per tier, per hospital) once the data's shape is known;
// a model that cannot be built is an input error naming its key.
void set_up_models(World& world) {
  const Scenario& s = world.scenario;
  world.spec = model_spec_for(s, world.data.train.shape, world.data.train.num_classes);
  try {
    world.cost = models::model_cost(world.spec);
  } catch (const std::invalid_argument& e) {
    throw s.error_at("model.arch", e.what());
  }
  for (const auto& [tier, m] : s.model.tiers) {
    world.tier_specs[tier] = tier_spec_for(m, world.spec);
    try {
      models::model_cost(world.tier_specs[tier]);
    } catch (const std::invalid_argument& e) {
      throw s.error_at("model." + tier, e.what());
    }
  }
  world.hospital_specs = hospital_specs(s, world);
}

std::unique_ptr<SetUp> set_up(const Scenario& s, const RunOptions& options) {
  check_settings(s);  // the platform's inputs are loaded once, below
  auto out = std::make_unique<SetUp>();
  out->engine = start_engine(s, options);

  World& world = out->world;
  world.scenario = s;
  world.catalog = platforms::load_tier_catalog(s.platform.tiers_file);
  check_server_tier(s, world.catalog);
  const auto machines = load_hospitals(world);
  const int n = out->hospitals = s.platform.xml.empty() ? int(machines.size()) : int(world.platform.hospitals.size());
  fit_actor_stacks(*out->engine, n);

  set_up_data(world, n);
  if (s.platform.xml.empty()) build_star(world, machines);
  if (s.platform.server_profile_device) world.platform.server_spec.profile_device = *s.platform.server_profile_device;
  if (s.platform.server_speed_factor) world.platform.server_spec.speed_factor = *s.platform.server_speed_factor;
  if (s.timing.compute == ComputeModel::Profile) world.profile = load_profile(s, world.platform);

  set_up_models(world);
  // Each hospital's own model on its device: a missing profile row refused now, not mid-run.
  if (world.profile)
    for (size_t h = 0; h < world.hospital_specs.size(); ++h)
      world.profile->require_model(world.platform.hospital_specs[h].profile_device, world.hospital_specs[h]);
  if (s.training.timing_only && !s.training.surrogate.empty()) world.surrogate = AccuracyCurve::load(s.training.surrogate);
  return out;
}

// What the algorithm's requirements see of the run just set up (RunOptions::check).
SetupView setup_view(Federation& fed, const World& world) {
  SetupView view{
      .scenario = world.scenario, .hospitals = {}, .tiers = fed.tiers(), .model = world.spec, .tier_models = {}};
  for (const Hospital* h : fed.hospitals()) view.hospitals.push_back({h->name(), h->tier(), fed.hospital_spec(*h)});
  for (const auto& tier : view.tiers) view.tier_models.emplace(tier, fed.tier_spec(tier));
  view.server_train_samples = fed.server_data().train.size(), view.server_val_samples = fed.server_data().val.size();
  return view;
}

// The real training's side of a run: initial weights, device, the executor and its queue.
void prepare_compute(World& world, const Scenario& s, JobExchange* exchange) {
  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  if (s.training.timing_only) {
    world.perf.workers = 0;  // nothing to compute for real
  } else {
    world.initial_weights = initial_weights(world.spec, mix_seed(s.seed, kModelInit));
    // Every tier model's initial weights too, here: torch's generator is global, so draws
    // happen on this thread before any job runs.
    auto draw = [&](const models::ModelSpec& spec) {
      if (spec == world.spec) return;
      auto& slot = world.other_initial_weights[models::spec_label(spec)];
      if (slot.empty()) slot = initial_weights(spec, mix_seed(s.seed, kModelInit));
    };
    for (const auto& [tier, spec] : world.tier_specs) draw(spec);
    for (const auto& spec : world.hospital_specs) draw(spec);
    world.device = resolve_device(s.training.device);
    configure_determinism(world.device, s.training.deterministic);
    world.perf.workers = s.training.workers > 0 ? s.training.workers : cores;
  }
  // The intra-op thread count sets LibTorch's reduction order, so it is the scenario's own
  // (default 1), never cores / workers: any worker count and core count give the same bytes.
  world.perf.threads_per_worker = s.training.threads_per_worker;
  if (world.perf.workers > 0) cache_large_blocks();
  world.executor = std::make_unique<Executor>(world.perf.workers,
                                              [t = world.perf.threads_per_worker] { init_torch_worker(t); });
  world.training = std::make_unique<TrainingQueue>(*world.executor, world.perf.training_busy,
                                                   fuse_limit_of(s.training.fuse, world.device), exchange);
}

// set_up and prepare_compute; under training.executor: mpi on every rank, which then agree
// before round 1: a rank that cannot load the data or its device refuses the run for all.
std::unique_ptr<SetUp> set_up_compute(const Scenario& s, const RunOptions& options) {
  std::unique_ptr<SetUp> setup;
  std::exception_ptr failure;
  std::string why;
  try {
    setup = set_up(s, options);
    prepare_compute(setup->world, s, options.exchange);
  } catch (const std::exception& e) {
    if (!options.exchange) throw;
    failure = std::current_exception(), why = e.what();
  }
  if (!options.exchange) return setup;
  const auto first = options.exchange->agree_set_up(bool(failure), why);
  if (first && first->first == options.exchange->rank()) std::rethrow_exception(failure);
  if (first)
    throw s.error_at("training.executor",
                     "rank " + std::to_string(first->first) + " of the MPI launch cannot set up: " + first->second);
  return setup;
}

// perf.json: where the run's wall time went (never part of the deterministic outputs).
void write_perf(const std::string& dir, const World& world, const Recorder& recorder, int n, double total,
                double sim_wall) {
  const auto& p = world.perf;
  const double output_s = recorder.output_seconds();
  write_perf_json(dir,
                  {{"wall_total_s", total},
                   {"wall_setup_s", p.setup_s},
                   {"wall_simulation_s", sim_wall},
                   {"wall_training_wait_s", p.wait_training_s},
                   {"wall_evaluation_s", p.evaluation_s},
                   {"wall_output_s", output_s},
                   {"wall_engine_and_algorithm_s", sim_wall - p.wait_training_s - p.evaluation_s - output_s},
                   {"wall_training_jobs_s", p.training_busy.seconds()},
                   {"training_flops", p.training_flops},
                   // Charged FLOPs over the wall time any training job ran: the whole machine's
                   // achieved rate, to set against its peak (bench/peak_flops).
                   {"training_flops_per_s", p.training_busy.seconds() > 0 ? p.training_flops / p.training_busy.seconds() : 0.0},
                   {"training_jobs_run_at_aggregation", double(p.jobs_run_at_aggregation)},
                   // training.fuse: jobs trained inside fused jobs, and how many fused jobs.
                   {"training_jobs_fused", double(world.training->fused_members())},
                   {"fused_jobs", double(world.training->fused_jobs())},
                   // training.executor: mpi: jobs this rank took from the others.
                   {"training_jobs_on_other_ranks", double(world.training->jobs_on_other_ranks())},
                   {"evaluation_parts_on_other_ranks",
                    world.training->exchange() ? double(world.training->exchange()->parts_from_others()) : 0.0},
                   {"peak_rss_mib", peak_rss_mib()},
                   {"workers", p.workers},
                   {"threads_per_worker", p.threads_per_worker},
                   {"hospitals", n}});
}

RunSummary simulate(const Scenario& s, const RunOptions& options, const std::function<void(Federation&)>& protocol) {
  const auto t_start = std::chrono::steady_clock::now();
  const auto setup = set_up_compute(s, options);
  World& world = setup->world;
  const int n = setup->hospitals;
  world.perf.setup_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();

  world.round_columns = options.round_columns, world.hospital_columns = options.hospital_columns;
  std::vector<Observer*> observers = options.observers;
  std::unique_ptr<StateReader> resume;
  if (!options.resume_from.empty()) resume = std::make_unique<StateReader>(options.resume_from);
  std::unique_ptr<Recorder> recorder;
  if (options.write_outputs) {
    recorder = std::make_unique<Recorder>(s.output.dir, s.output.trace,
                                          resume ? resume->integers("outputs.sizes") : std::vector<int64_t>{});
    observers.push_back(recorder.get());
  }
  std::unique_ptr<ProgressLine> progress;
  if (options.progress && ProgressLine::wanted()) {
    progress = std::make_unique<ProgressLine>(s.stop.rounds);
    observers.push_back(progress.get());
  }
  if (!options.set_up_only)
    spdlog::info("{}: {} hospitals, {} ({} values, {:.1f} MFLOP/sample forward), dataset {} ({} train, {} test)",
               s.name, n, s.model.arch, world.cost.state_values, world.cost.forward_flops / 1e6,
               world.data.train.name, world.data.train.size(), world.data.test.size());

  RunSummary summary;
  std::exception_ptr failure;
  // Refused at set-up, a run leaves no outputs behind: a folder that has some is an earlier
  // run's (claim_output_folder).
  struct DiscardUnlessSetUp {
    Recorder* recorder;
    bool set_up = false;
    ~DiscardUnlessSetUp() {
      if (recorder && !set_up) recorder->discard();
    }
  } discard{recorder.get()};
  Federation fed(world, observers);
  if (options.check) options.check(setup_view(fed, world));
  discard.set_up = true;
  if (options.set_up_only) return summary;  // fedgrid validate: everything is loaded, nothing runs
  if (s.output.checkpoint_every > 0 || resume) {
    if (!recorder) throw std::logic_error("checkpoints need the output files");
    fed.set_checkpoints(s.output.dir + "/checkpoint.bin", [&] { return recorder->sizes(); }, resume.get());
  }
  sg4::Actor::create("server", world.platform.server, [&] {
    try {
      protocol(fed);
      summary = fed.finish(versions());
    } catch (...) {
      failure = std::current_exception();
    }
  });
  const auto t_sim = std::chrono::steady_clock::now();
  setup->engine->run();
  const double sim_wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_sim).count();
  if (failure) std::rethrow_exception(failure);

  if (options.write_outputs)
    write_perf(s.output.dir, world, *recorder, n,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count(), sim_wall);
  return summary;
}

}  // namespace

void check_scenario(const Scenario& s) { platform_input([&] { check_platform_and_data(s); }); }

std::string export_platform(const Scenario& s) {
  return platform_input([&] {
    check_scenario(s);
    if (!s.platform.xml.empty())
      throw s.error_at("platform.xml", "the scenario's platform is SimGrid XML already (" + s.platform.xml + ")");
    if (s.timing.cohorts)
      throw s.error_at("timing.cohorts", "cohorts fold identical hospitals into one host; export the platform without "
                                         "them (timing.cohorts: false), where every hospital is its own host");
    const auto catalog = platforms::load_tier_catalog(s.platform.tiers_file);
    auto server = platforms::machine_from_tier("server", *catalog.find(s.platform.server_tier));
    if (s.platform.server_profile_device) server.profile_device = *s.platform.server_profile_device;
    if (s.platform.server_speed_factor) server.speed_factor = *s.platform.server_speed_factor;
    const std::string header =
        "  The platform that " + s.file + " builds, written by fedgrid " + FEDGRID_VERSION +
        " (fedgrid platform) as\n"
        "  SimGrid XML. To run it, set in that scenario\n"
        "    platform: {xml: THIS_FILE, server: {host: server}}\n"
        "  and take platform.hospitals (or platform.roster) out: the outputs are the same, byte for\n"
        "  byte. Edit speeds, links and tiers here; a host's tier names its group in the outputs.\n";
    return platforms::star_platform_xml(server, hospital_population(s, catalog).machines,
                                        {s.platform.backbone_bandwidth_bps, s.platform.backbone_latency_s}, header);
  });
}

void set_up_only(const Scenario& s, const std::function<void(const SetupView&)>& check) {
  RunOptions options;
  options.write_outputs = false;
  options.set_up_only = true;
  options.check = check;
  run_scenario(s, options, [](Federation&) {});
}

RunSummary run_scenario(const Scenario& s, const RunOptions& options,
                        const std::function<void(Federation&)>& protocol) {
  return platform_input([&] { return simulate(s, options, protocol); });
}

}  // namespace fedgrid

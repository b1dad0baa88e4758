#include "sim/engine/run.hpp"

#include <simgrid/s4u.hpp>
#include <simgrid/version.h>
#include <spdlog/spdlog.h>

#include <chrono>

#include "platforms/platform_export.hpp"
#include "platforms/platform_xml_check.hpp"
#include "sim/engine/data_setup.hpp"
#include "sim/engine/federation.hpp"
#include "sim/engine/population.hpp"
#include "sim/core/input_error.hpp"
#include "sim/engine/progress.hpp"
#include "sim/engine/recorder.hpp"
#include "sim/engine/run_setup.hpp"
#include "sim/engine/state_file.hpp"
#include "sim/jobs/compute.hpp"
#include "sim/jobs/mpi/job_exchange.hpp"
#include "sim/jobs/torch_module.hpp"
#include "sim/engine/world.hpp"

namespace fedgrid {
namespace sg4 = simgrid::s4u;

namespace {

using namespace run_setup;

std::vector<std::pair<std::string, std::string>> versions() {
  return {{"fedgrid", FEDGRID_VERSION},
          {"simgrid", std::to_string(SIMGRID_VERSION_MAJOR) + "." + std::to_string(SIMGRID_VERSION_MINOR) + "." +
                          std::to_string(SIMGRID_VERSION_PATCH)},
          {"torch", torch_version()}};
}

// What needs no platform: device and precision, the surrogate curve, the data sources, the
// model against the data's shape. set_up runs it first, then loads the platform itself once.
void check_settings(const Scenario& s) {
  // The device is resolved (LibTorch asked whether it sees a GPU) only where a check needs it:
  // validating a CPU run loads no LibTorch (torch_module.hpp).
  if (!s.training.timing_only && (s.training.device == DeviceChoice::Cuda || s.training.precision == Precision::Bf16)) {
    load_torch();
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

std::unique_ptr<SetUp> set_up(const Scenario& s, const RunOptions& options) {
  check_settings(s);  // the platform's inputs are loaded once, below
  auto out = std::make_unique<SetUp>();
  out->engine = start_engine(s, options.simgrid_args);

  World& world = out->world;
  world.scenario = s;
  world.catalog = platforms::load_tier_catalog(s.platform.tiers_file);
  check_server_tier(s, world.catalog);
  const auto machines = load_hospitals(world);
  const int n = out->hospitals = s.platform.xml.empty() ? int(machines.size()) : int(world.platform.hospitals.size());
  fit_actor_stacks(*out->engine, n);

  // A timing-only run needs the data's shape and labels; validate reads what a run that trains
  // reads, but builds nothing from the pixels.
  set_up_data(world, n, s.training.timing_only ? data::Pixels::Skip
                        : options.set_up_only  ? data::Pixels::Check
                                               : data::Pixels::Keep);
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

// set_up and prepare_compute; under training.executor: mpi on every rank, which then agree
// before round 1: a rank that cannot load the data or its device refuses the run for all.
std::unique_ptr<SetUp> set_up_compute(const Scenario& s, const RunOptions& options) {
  std::unique_ptr<SetUp> setup;
  std::exception_ptr failure;
  std::string why;
  try {
    setup = set_up(s, options);
    prepare_compute(setup->world, s, options.exchange, options.set_up_only);
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
    const auto server = run_setup::server_machine(s, catalog);
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

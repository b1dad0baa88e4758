// `fedgrid sweep`: the grid a sweep file expands into, its merged sweep.csv, a failing cell,
// resuming, bad sweep files, and the same sweep.csv from --jobs 1, --jobs 2 and 2 MPI ranks.
#include <gtest/gtest.h>

#include <filesystem>

#include "sim/core/input_error.hpp"
#include "sim/engine/run.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/sweep/sweep_cell.hpp"
#include "sim/sweep/sweep_plan.hpp"
#include "sim/sweep/sweep_table.hpp"
#include "tests/helpers.hpp"
#include "tests/mpi_launch.hpp"

namespace fedgrid {
namespace {

namespace fs = std::filesystem;
using test::read_file;
using test::run_fedgrid;
using test::write_file;

// A folder with the tiny base scenario (seed 7) and `sweep` as sweep.yaml.
std::string sweep_folder(const std::string& tag, const std::string& sweep) {
  const std::string dir = test::temp_dir(tag);
  write_file(dir + "/base.yaml", test::tiny_scenario("base", "output: {trace: false}\n"));
  write_file(dir + "/sweep.yaml", sweep);
  return dir;
}

const char* kTwoAxes = R"(name: grid
base: base.yaml
set: {stop.rounds: 1}
axes:
  - {key: algorithm.name, values: [fedavg, fedseq]}
  - {key: "platform.hospitals[0].uplink_bps", name: weak_uplink, values: [10e6, 1e9, 5e9]}
seeds: [3, 4]
)";

TEST(Sweep, GridCrossesAxesAndSeeds) {
  const std::string dir = sweep_folder("sweep_grid", kTwoAxes);
  const SweepPlan plan = load_sweep(dir + "/sweep.yaml", dir + "/out");
  EXPECT_EQ(plan.base, dir + "/base.yaml");
  EXPECT_EQ(plan.common, std::vector<std::string>{"stop.rounds=1"});
  ASSERT_EQ(plan.axes.size(), 2u);
  EXPECT_EQ(plan.axes[1].key, "platform.hospitals.0.uplink_bps");  // --set's form
  const auto cells = plan.cells();
  ASSERT_EQ(cells.size(), 2u * 3u * 2u);
  // First axis slowest, seeds fastest.
  EXPECT_EQ(cells[0].values, (std::vector<std::string>{"fedavg", "10e6"}));
  EXPECT_EQ(cells[0].seed, 3u);
  EXPECT_EQ(cells[1].seed, 4u);
  EXPECT_EQ(cells[2].values, (std::vector<std::string>{"fedavg", "1e9"}));
  EXPECT_EQ(cells[6].values, (std::vector<std::string>{"fedseq", "10e6"}));
  EXPECT_EQ(cells[11].values, (std::vector<std::string>{"fedseq", "5e9"}));
  EXPECT_EQ(cells[11].seed, 4u);
  EXPECT_EQ(cells[11].dir, "algorithm.name=fedseq,weak_uplink=5e9,seed=4");
  EXPECT_EQ(cells[11].overrides, (std::vector<std::string>{"stop.rounds=1", "algorithm.name=fedseq",
                                                           "platform.hospitals.0.uplink_bps=5e9", "seed=4"}));
  for (size_t i = 0; i < cells.size(); ++i) EXPECT_EQ(cells[i].index, i);
}

TEST(Sweep, SeedDefaultsToTheBaseScenarios) {
  const std::string dir = sweep_folder("sweep_seed", "base: base.yaml\naxes:\n  - {key: model.arch, values: [mlp, cnn]}\n");
  const SweepPlan plan = load_sweep(dir + "/sweep.yaml");
  EXPECT_EQ(plan.name, "sweep");  // the file's stem
  EXPECT_EQ(plan.out, "results/sweeps/sweep");
  EXPECT_EQ(plan.seeds, std::vector<uint64_t>{7});
  EXPECT_EQ(plan.cells().size(), 2u);
}

TEST(Sweep, ShippedSweepsAreValidInEveryCell) {
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(std::string(test::source_dir()) + "/scenarios/sweeps")) {
    const SweepPlan plan = load_sweep(entry.path().string(), test::temp_dir("shipped"));
    for (const auto& cell : plan.cells()) EXPECT_NO_THROW(check_scenario(load_scenario(plan.base, cell.overrides))) << cell.dir;
    ++files;
  }
  EXPECT_GE(files, 2u);
}

// Bad sweep files: exit 2 before any cell runs, naming the file, line and key.
void expect_bad_sweep(const std::string& tag, const std::string& sweep, const std::vector<std::string>& expected,
                      const std::string& options = "") {
  const std::string dir = sweep_folder(tag, sweep);
  auto r = run_fedgrid("sweep " + dir + "/sweep.yaml --out " + dir + "/out " + options);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  for (const auto& e : expected) EXPECT_NE(r.output.find(e), std::string::npos) << "missing '" << e << "' in\n" << r.output;
  EXPECT_FALSE(fs::exists(dir + "/out/sweep.csv"));
}

TEST(Sweep, BadSweepFilesAreInputErrors) {
  expect_bad_sweep("sweep_badkey", "base: base.yaml\naxes:\n  - {key: training.lrr, values: [0.1]}\n",
                   {"sweep.yaml:3:", "key 'axes[0].key'", "'training.lrr' is not a scenario key", "did you mean 'training.lr'"});
  expect_bad_sweep("sweep_toplevel", "base: base.yaml\naxis: []\n", {"sweep.yaml:2:", "key 'axis'", "unknown key"});
  expect_bad_sweep("sweep_nobase", "axes:\n  - {key: seed, values: [1]}\n", {"sweep.yaml", "key 'base'", "missing"});
  expect_bad_sweep("sweep_dupvalue", "base: base.yaml\naxes:\n  - key: model.arch\n    values: [mlp, mlp]\n",
                   {"sweep.yaml:4:", "value 'mlp' given twice"});
  expect_bad_sweep("sweep_seedkey", "base: base.yaml\naxes:\n  - {key: seed, values: [1, 2]}\n",
                   {"key 'axes[0].key'", "swept with `seeds`"});
  expect_bad_sweep("sweep_twice", "base: base.yaml\nset: {model.arch: mlp}\naxes:\n  - {key: model.arch, values: [cnn]}\n",
                   {"sweep.yaml:4:", "'model.arch' is set twice"});
  expect_bad_sweep("sweep_badbase", "base: nothere.yaml\naxes:\n  - {key: model.arch, values: [mlp]}\n", {"nothere.yaml"});
  expect_bad_sweep("sweep_nothing", "base: base.yaml\n", {"nothing to sweep"});
  // An algorithm's own key in `set` must be a key of every algorithm the cells name.
  expect_bad_sweep("sweep_others_key",
                   "base: base.yaml\nset: {algorithm.order: fixed}\naxes:\n  - {key: algorithm.name, values: [fedseq, "
                   "fedavg]}\n",
                   {"key 'algorithm.order'", "not a key of algorithm 'fedavg': only fedseq and fedcross declare it"});
}

// The fields of a CSV line, quotes undone (cell folders and errors hold commas).
std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') out.back() += '"', ++i;
    else if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) out.emplace_back();
    else out.back() += c;
  }
  return out;
}

// Columns of sweep.csv by name, for the row of `cell`.
std::map<std::string, std::string> row(const std::string& csv_text, size_t cell) {
  const auto rows = test::lines(csv_text);
  const auto header = fields(rows.at(0));
  const auto values = fields(rows.at(cell + 1));
  std::map<std::string, std::string> out;
  for (size_t i = 0; i < header.size() && i < values.size(); ++i) out[header[i]] = values[i];
  return out;
}

TEST(Sweep, CsvQuotesErrorsAndKeepsCellOrder) {
  const std::string dir = sweep_folder("sweep_csv", "base: base.yaml\naxes:\n  - {key: algorithm.name, values: [fedavg, x]}\n");
  const SweepPlan plan = load_sweep(dir + "/sweep.yaml", dir + "/out");
  CellOutcome ok{0, true, "", R"({"rounds": 2, "final_accuracy": 0.5, "final_tier_accuracy": {"weak": 0.25}})"};
  CellOutcome failed{1, false, "bad \"x\", really", ""};
  const std::string csv = sweep_csv(plan, {failed, ok});
  const auto rows = test::lines(csv);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].substr(0, 45), "cell,algorithm.name,seed,status,error,dir,rou");
  EXPECT_EQ(rows[0].substr(rows[0].size() - 15), ",final_acc_weak");
  EXPECT_EQ(rows[1].rfind(R"(0,fedavg,7,ok,,"algorithm.name=fedavg,seed=7",2,)", 0), 0u) << rows[1];
  EXPECT_EQ(rows[2].rfind(R"(1,x,7,failed,"bad ""x"", really","algorithm.name=x,seed=7",,)", 0), 0u) << rows[2];
  EXPECT_EQ(row(csv, 0)["final_accuracy"], "0.5");
  EXPECT_EQ(row(csv, 0)["final_acc_weak"], "0.25");
  EXPECT_EQ(row(csv, 0)["stop_reason"], "");
  EXPECT_EQ(row(csv, 1)["error"], "bad \"x\", really");
  EXPECT_EQ(row(csv, 1)["final_acc_weak"], "");
}

const char* kWithFailure = R"(name: partly
base: base.yaml
set: {stop.rounds: 1}
axes:
  - {key: algorithm.name, values: [fedavg, fedmagic, fedseq]}
)";

TEST(Sweep, AFailedCellIsRecordedAndTheOthersGoOn) {
  const std::string dir = sweep_folder("sweep_fail", kWithFailure);
  auto r = run_fedgrid("sweep " + dir + "/sweep.yaml --out " + dir + "/out --jobs 2");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("3 cells: 3 run, 0 finished earlier, 1 failed"), std::string::npos) << r.output;
  const std::string csv = read_file(dir + "/out/sweep.csv");
  EXPECT_EQ(row(csv, 0)["status"], "ok");
  EXPECT_EQ(row(csv, 2)["status"], "ok");
  EXPECT_EQ(row(csv, 2)["rounds"], "1");
  EXPECT_EQ(row(csv, 1)["status"], "failed");
  EXPECT_EQ(row(csv, 1)["rounds"], "");
  EXPECT_NE(csv.find("unknown algorithm 'fedmagic'"), std::string::npos) << csv;
  EXPECT_NE(csv.find("(exit code 2)"), std::string::npos) << csv;
  // The failed cell keeps its log; the good ones are whole run folders.
  EXPECT_NE(read_file(dir + "/out/algorithm.name=fedmagic,seed=7/run.log").find("fedmagic"), std::string::npos);
  EXPECT_TRUE(fs::exists(dir + "/out/algorithm.name=fedseq,seed=7/rounds.csv"));
  EXPECT_NE(read_file(dir + "/out/sweep.json").find("\"key\": \"algorithm.name\""), std::string::npos);
}

TEST(Sweep, ARerunSkipsFinishedCellsAndRedoesTheRest) {
  const std::string dir = sweep_folder("sweep_resume", kWithFailure);
  const std::string cmd = "sweep " + dir + "/sweep.yaml --out " + dir + "/out";
  ASSERT_EQ(run_fedgrid(cmd).exit_code, 1);
  const std::string first = read_file(dir + "/out/sweep.csv");
  const std::string fedavg = dir + "/out/algorithm.name=fedavg,seed=7";
  const auto stamp = fs::last_write_time(fedavg + "/summary.json");

  // As if interrupted while fedseq ran: it recorded nothing. The failed cell is kept.
  fs::remove(dir + "/out/algorithm.name=fedseq,seed=7/summary.json");
  fs::remove(dir + "/out/algorithm.name=fedseq,seed=7/cell.json");
  auto again = run_fedgrid(cmd);
  EXPECT_EQ(again.exit_code, 1) << again.output;
  EXPECT_NE(again.output.find("3 cells: 1 run, 1 finished earlier, 1 failed (1 failed earlier and kept"),
            std::string::npos) << again.output;
  EXPECT_NE(again.output.find("algorithm.name=fedmagic,seed=7: FAILED earlier, kept: "), std::string::npos)
      << again.output;
  EXPECT_EQ(fs::last_write_time(fedavg + "/summary.json"), stamp);  // not run again
  EXPECT_EQ(read_file(dir + "/out/sweep.csv"), first);

  // A cell whose definition changed is not taken for finished.
  write_file(dir + "/sweep.yaml", std::string(kWithFailure).replace(std::string(kWithFailure).find("rounds: 1"), 9, "rounds: 2"));
  auto changed = run_fedgrid(cmd);
  EXPECT_NE(changed.output.find("3 cells: 3 run, 0 finished earlier"), std::string::npos) << changed.output;
  EXPECT_EQ(row(read_file(dir + "/out/sweep.csv"), 0)["rounds"], "2");
}

// A cell that failed for a reason fixed since (here its tier catalog was missing) is kept as
// failed by a plain re-run, and run again with --retry-failed; finished cells stay untouched.
TEST(Sweep, RetryFailedRunsOnlyTheFailedCellsAgain) {
  const std::string dir = test::temp_dir("sweep_retry");
  write_file(dir + "/base.yaml", test::tiny_scenario("base", "output: {trace: false}\n"));
  const std::string tiers = read_file(std::string(test::source_dir()) + "/platforms/tiers.yaml");
  write_file(dir + "/a.yaml", tiers);
  write_file(dir + "/sweep.yaml", "base: base.yaml\nset: {stop.rounds: 1}\naxes:\n  - {key: platform.tiers, name: "
                                  "tiers, values: [" + dir + "/a.yaml, " + dir + "/b.yaml]}\n");
  const std::string cmd = "sweep " + dir + "/sweep.yaml --out " + dir + "/out";
  auto first = run_fedgrid(cmd);
  EXPECT_EQ(first.exit_code, 1) << first.output;
  EXPECT_NE(first.output.find("2 cells: 2 run, 0 finished earlier, 1 failed ->"), std::string::npos) << first.output;
  const std::string a_dir = dir + "/out/" + row(read_file(dir + "/out/sweep.csv"), 0)["dir"];
  const auto stamp = fs::last_write_time(a_dir + "/summary.json");
  EXPECT_NE(row(read_file(dir + "/out/sweep.csv"), 1)["error"].find("tier catalog not found"), std::string::npos);

  write_file(dir + "/b.yaml", tiers);
  auto kept = run_fedgrid(cmd);
  EXPECT_EQ(kept.exit_code, 1) << kept.output;
  EXPECT_NE(kept.output.find("2 cells: 0 run, 1 finished earlier, 1 failed (1 failed earlier and kept: "
                             "--retry-failed runs them again)"),
            std::string::npos) << kept.output;
  EXPECT_EQ(row(read_file(dir + "/out/sweep.csv"), 1)["status"], "failed");

  auto retried = run_fedgrid(cmd + " --retry-failed");
  EXPECT_EQ(retried.exit_code, 0) << retried.output;
  EXPECT_NE(retried.output.find("2 cells: 1 run, 1 finished earlier, 0 failed ->"), std::string::npos) << retried.output;
  EXPECT_EQ(fs::last_write_time(a_dir + "/summary.json"), stamp);  // not run again
  const std::string csv = read_file(dir + "/out/sweep.csv");
  EXPECT_EQ(row(csv, 1)["status"], "ok");
  EXPECT_EQ(row(csv, 1)["rounds"], "1");
}

// --set on the sweep's command line: every cell, after (so over) the file's `set:`.
TEST(Sweep, SetOnTheCommandLineReachesEveryCell) {
  const std::string dir = sweep_folder("sweep_set", kTwoAxes);
  const SweepPlan plan = load_sweep(dir + "/sweep.yaml", dir + "/out", {"stop.rounds=2", "model.arch=cnn"});
  EXPECT_EQ(plan.common, (std::vector<std::string>{"stop.rounds=1", "stop.rounds=2", "model.arch=cnn"}));
  for (const auto& cell : plan.cells()) {
    const Scenario s = load_scenario(plan.base, cell.overrides);
    EXPECT_EQ(s.stop.rounds, 2) << cell.dir;
    EXPECT_EQ(s.model.arch, "cnn") << cell.dir;
  }
  // The list form of a key is accepted as the sweep file takes it.
  EXPECT_EQ(load_sweep(dir + "/sweep.yaml", dir + "/out", {"platform.hospitals[1].count=3"}).common.back(),
            "platform.hospitals.1.count=3");

  // End to end: two cells, each run with the command line's rounds.
  const std::string small = sweep_folder("sweep_set_run", "base: base.yaml\nset: {stop.rounds: 1}\nseeds: [1, 2]\n");
  auto r = run_fedgrid("sweep " + small + "/sweep.yaml --out " + small + "/out --set stop.rounds=2 --jobs 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string csv = read_file(small + "/out/sweep.csv");
  EXPECT_EQ(row(csv, 0)["rounds"], "2");
  EXPECT_EQ(row(csv, 1)["rounds"], "2");
  EXPECT_NE(read_file(small + "/out/sweep.json").find("stop.rounds=2"), std::string::npos);
}

// A --set may not decide what the grid varies: exit 2, naming the key and the axis's line.
TEST(Sweep, SetOfASweptKeyIsRefused) {
  expect_bad_sweep("sweep_set_axis", kTwoAxes, {"--set: key 'algorithm.name'", "swept by axes[0]", "sweep.yaml:5)"},
                   "--set algorithm.name=fedavg");
  expect_bad_sweep("sweep_set_item", kTwoAxes, {"key 'platform.hospitals.0.uplink_bps'", "swept by axes[1]", "sweep.yaml:6)"},
                   "--set platform.hospitals[0].uplink_bps=1e9");
  expect_bad_sweep("sweep_set_parent", kTwoAxes, {"key 'platform.hospitals'", "swept by axes[1]"},
                   "--set platform.hospitals=null");
  expect_bad_sweep("sweep_set_seed", kTwoAxes, {"key 'seed'", "swept by `seeds` (", "sweep.yaml:7)"}, "--set seed=9");
  expect_bad_sweep("sweep_set_out", kTwoAxes, {"key 'output.dir'", "--out names the sweep's folder"},
                   "--set output.dir=x");
  expect_bad_sweep("sweep_set_unknown", kTwoAxes, {"--set: key 'training.lrr'", "did you mean 'training.lr'"},
                   "--set training.lrr=0.1");
  expect_bad_sweep("sweep_set_form", kTwoAxes, {"expected key.path=value, got 'stop.rounds'"}, "--set stop.rounds");
}

// algorithm.order is fedseq's and fedcross's own key: every rank validates it with the registry.
const char* kSmallGrid = R"(name: ranks
base: base.yaml
set: {stop.rounds: 1, algorithm.order: fixed}
axes:
  - {key: algorithm.name, values: [fedseq, fedcross]}
  - {key: platform.hospitals.0.uplink_bps, name: weak_uplink, values: [10e6, 1e9]}
seeds: [1, 2]
)";

TEST(Sweep, JobsAndMpiRanksGiveTheSameTable) {
  const std::string dir = sweep_folder("sweep_mpi", kSmallGrid);
  const std::string sweep = " sweep " + dir + "/sweep.yaml --out " + dir;
  auto one = run_fedgrid(sweep + "/one --jobs 1");
  ASSERT_EQ(one.exit_code, 0) << one.output;
  auto two = run_fedgrid(sweep + "/two --jobs 2");
  ASSERT_EQ(two.exit_code, 0) << two.output;
  const std::string reference = read_file(dir + "/one/sweep.csv");
  EXPECT_EQ(test::lines(reference).size(), 9u);
  EXPECT_EQ(read_file(dir + "/two/sweep.csv"), reference);
  // Outcomes differ between cells, so equal tables mean each row came from its own cell.
  EXPECT_NE(row(reference, 0)["sim_time_s"], row(reference, 2)["sim_time_s"]);

  // Two ranks on this machine (oversubscribed): rank 0 hands cells out and merges.
  if (const char* why = test::why_no_mpi()) GTEST_SKIP() << why;
  const std::string mpirun =
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -np 2 " +
      std::string(test::fedgrid_binary()) + sweep + "/mpi 2>&1";
  FILE* pipe = popen(mpirun.c_str(), "r");
  std::string output;
  for (char buf[4096]; size_t n = fread(buf, 1, sizeof buf, pipe);) output.append(buf, n);
  EXPECT_EQ(pclose(pipe), 0) << output;
  EXPECT_NE(output.find("(rank 1)"), std::string::npos) << "rank 1 ran no cell:\n" << output;
  EXPECT_EQ(read_file(dir + "/mpi/sweep.csv"), reference);
}

}  // namespace
}  // namespace fedgrid

// training.executor: mpi (issue 37): one run's training jobs spread over the ranks of an MPI
// launch give the local executor's bytes (a parallel, a relay, a peer-to-peer and an
// asynchronous algorithm), a resumed run continues on another rank count to the same bytes, a
// rank that cannot set up refuses the run before round 1, a rank that dies is named with the
// job waited on, and the key is refused where it cannot work. Three ranks on this machine
// oversubscribe its cores: these check the results, bench/mpi_executor.sh the speed.
#include <filesystem>
#include <regex>

#include <nlohmann/json.hpp>

#include "helpers.hpp"
#include "tests/mpi_launch.hpp"
#include "sim/jobs/compute.hpp"

namespace fedgrid {
namespace {

using test::read_file;
using test::run_fedgrid;

const char* kDeterministicFiles[] = {"rounds.csv", "hospitals.csv", "events.csv", "summary.json"};

std::string mpirun(int ranks) {
  return "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -np " +
         std::to_string(ranks);
}

// A shell command line (the ranks' own `sh -c`), stdout and stderr together.
test::CommandResult run_shell(const std::string& command) {
  test::CommandResult r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  for (char buf[4096]; size_t n = fread(buf, 1, sizeof buf, pipe);) r.output.append(buf, n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

void expect_same_bytes(const std::string& a, const std::string& b) {
  for (const char* f : kDeterministicFiles) {
    const std::string bytes = read_file(a + "/" + f);
    EXPECT_FALSE(bytes.empty()) << a << "/" << f;
    EXPECT_EQ(bytes, read_file(b + "/" + f)) << f;
  }
}

double perf(const std::string& dir, const char* key) {
  return nlohmann::json::parse(read_file(dir + "/perf.json")).at(key).get<double>();
}

// Runs `scenario_args` (a scenario file or none, and --set overrides) with the local executor
// and on `ranks` MPI ranks; expects the same bytes, and jobs run by the other ranks.
void expect_mpi_gives_local_bytes(const std::string& tag, const std::string& scenario_args, int ranks) {
  const std::string dir = test::temp_dir(tag);
  const auto local = run_fedgrid("run " + scenario_args + " --out " + dir + "/local --log-level warn");
  ASSERT_EQ(local.exit_code, 0) << local.output;
  const auto mpi = run_fedgrid(
      "run " + scenario_args + " --out " + dir + "/mpi --set training.executor=mpi --log-level warn", mpirun(ranks));
  ASSERT_EQ(mpi.exit_code, 0) << mpi.output;
  expect_same_bytes(dir + "/local", dir + "/mpi");
  EXPECT_EQ(perf(dir + "/local", "training_jobs_on_other_ranks"), 0);
  EXPECT_GT(perf(dir + "/mpi", "training_jobs_on_other_ranks"), 0) << "every job ran on rank 0";
  EXPECT_GT(perf(dir + "/mpi", "evaluation_parts_on_other_ranks"), 0) << "rank 0 scored every evaluation";
}

std::string tiny_file(const std::string& tag, const std::string& extra = "") {
  const std::string dir = test::temp_dir(tag + "-scenario");
  test::write_file(dir + "/s.yaml", test::tiny_scenario(tag, extra));
  return dir + "/s.yaml";
}

// The quickstart's shape (nine hospitals of three tiers, the CNN, FedAvg, Dirichlet(0.5)) on a
// small synthetic pool, two rounds.
TEST(MpiExecutor, QuickstartShapeGivesTheLocalBytesOnThreeRanks) {
  if (const char* why = test::why_no_mpi()) GTEST_SKIP() << why;
  expect_mpi_gives_local_bytes("mpi-quickstart",
                               "--set data.dataset=synthetic --set data.synthetic.train_samples=1800 "
                               "--set data.synthetic.test_samples=300 --set data.synthetic.height=16 "
                               "--set data.synthetic.width=16 --set stop.rounds=2",
                               3);
}

// A relay: each job starts from the previous hospital's model, so every rank waits on each.
TEST(MpiExecutor, RelayGivesTheLocalBytes) {
  if (const char* why = test::why_no_mpi()) GTEST_SKIP() << why;
  expect_mpi_gives_local_bytes("mpi-fedseq", tiny_file("mpi-fedseq", "algorithm: {name: fedseq}\n") +
                                                  " --set stop.rounds=2", 3);
}

// Asynchronous: the server folds updates as they arrive in simulated time.
TEST(MpiExecutor, AsynchronousGivesTheLocalBytes) {
  if (const char* why = test::why_no_mpi()) GTEST_SKIP() << why;
  expect_mpi_gives_local_bytes("mpi-fedasync", tiny_file("mpi-fedasync", "algorithm: {name: fedasync}\n") +
                                                    " --set stop.rounds=4", 3);
}

// Peer-to-peer: FedSKD's mutual-learning jobs (Adam moments kept between rounds) write the
// algorithm's state, so every rank runs them (training_queue.hpp); its plain jobs are spread.
TEST(MpiExecutor, PeerToPeerGivesTheLocalBytes) {
  if (const char* why = test::why_no_mpi()) GTEST_SKIP() << why;
  const std::string extra = "algorithm: {name: fedskd}\n";
  expect_mpi_gives_local_bytes("mpi-fedskd",
                               tiny_file("mpi-fedskd", extra) +
                                   " --set stop.rounds=2 --set training.optimizer=adam --set training.lr=0.001",
                               2);
}

// Killed after round 2 on three ranks, resumed on two: the bytes of one uninterrupted local run.
TEST(MpiExecutor, ResumesOnAnotherRankCountToTheSameBytes) {
  if (const char* why = test::why_no_mpi()) GTEST_SKIP() << why;
  const std::string dir = test::temp_dir("mpi-resume");
  const std::string scenario = tiny_file("mpi-resume") + " --set stop.rounds=4 --set output.checkpoint_every=1 --log-level warn";
  const auto whole = run_fedgrid("run " + scenario + " --out " + dir + "/whole");
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
  const auto killed = run_fedgrid("run " + scenario + " --out " + dir + "/killed --set training.executor=mpi",
                                  "TMPDIR=" + dir + " FEDGRID_CRASH_AT=round-reported:2 " + mpirun(3));
  EXPECT_NE(killed.exit_code, 0) << killed.output;
  const auto resumed = run_fedgrid("resume " + dir + "/killed --log-level warn", mpirun(2));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  expect_same_bytes(dir + "/whole", dir + "/killed");
}

// Rank 1 alone asks for a GPU this machine does not have: every rank stops before round 1 with
// exit code 2, and rank 0 says which rank could not set up and why.
TEST(MpiExecutor, ARankThatCannotSetUpRefusesTheRun) {
  if (const char* why = test::why_no_mpi()) GTEST_SKIP() << why;
  if (cuda_available()) GTEST_SKIP() << "rank 1's training.device: cuda would load here";
  const std::string dir = test::temp_dir("mpi-setup");
  const std::string run = std::string(test::fedgrid_binary()) + " run " + tiny_file("mpi-setup") + " --out " + dir +
                          "/out --set training.executor=mpi";
  const auto r = run_shell(mpirun(2) + " sh -c 'if [ \"$OMPI_COMM_WORLD_RANK\" = 1 ]; then exec " + run +
                           " --set training.device=cuda; else exec " + run + "; fi'");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("key 'training.executor': rank 1 of the MPI launch cannot set up"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("training.device"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out/rounds.csv")) << "a round ran";
}

// Rank 1 is killed mid-run, once round 1 is in rounds.csv (at most 2 minutes on): mpirun ends
// the launch naming the dead rank, and rank 0 says which job it was at: waiting on a training
// job or an evaluation part from rank 1, or training one of its own, depending on the instant.
TEST(MpiExecutor, ADeadRankIsNamedWithTheJobWaitedOn) {
  if (const char* why = test::why_no_mpi()) GTEST_SKIP() << why;
  const std::string dir = test::temp_dir("mpi-dead");
  const std::string run = std::string(test::fedgrid_binary()) + " run " + tiny_file("mpi-dead") + " --out " + dir +
                          "/out --set training.executor=mpi --set stop.rounds=100000 --log-level warn";
  const std::string after_round_1 = "i=0; while [ $(cat " + dir + "/out/rounds.csv 2>/dev/null | wc -l) -lt 2 ] && "
                                    "[ $i -lt 600 ]; do sleep 0.2; i=$((i+1)); done";
  // TMPDIR: the killed rank's scratch folder goes with the test's.
  const auto r = run_shell("TMPDIR=" + dir + " " + mpirun(2) + " sh -c 'if [ \"$OMPI_COMM_WORLD_RANK\" = 1 ]; then (" +
                           after_round_1 + "; kill -9 $$) & fi; exec " + run + "'");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex("fedgrid: rank 0 was stopped (while waiting on (training job|evaluation "
                                                     "part) [0-9]+ from rank 1|while training job [0-9]+ ran here|"
                                                     "after training job [0-9]+ arrived from rank 1)")))
      << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex("rank 1[^0-9]"))) << "the dead rank is not named:\n" << r.output;
}

// Without a launcher the key is refused, naming it (in a build without MPI too).
TEST(MpiExecutor, WithoutALauncherTheKeyIsRefused) {
  test::expect_run_input_error("mpi-no-launcher", test::tiny_scenario("mpi-no-launcher"),
                               "--set training.executor=mpi", "key 'training.executor': mpi needs an MPI launcher");
}

TEST(MpiExecutor, TimingOnlyRunsAreRefused) {
  test::expect_run_input_error("mpi-timing-only", test::tiny_scenario("mpi-timing-only"),
                               "--set training.executor=mpi --set training.mode=timing-only "
                               "--set data.samples_per_hospital=50",
                               "a timing-only run trains none");
}

}  // namespace
}  // namespace fedgrid

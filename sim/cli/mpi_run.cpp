// One rank of an MPI executor launch (see mpi_run.hpp).
#include "sim/cli/mpi_run.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "sim/cli/cli.hpp"
#include "sim/core/input_error.hpp"

namespace fedgrid {
namespace {

namespace fs = std::filesystem;

const char* first_set(std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (const char* value = std::getenv(name)) return value;
  return nullptr;
}

// Whether mpirun, mpiexec or srun started this process: without one, MPI_Init would make a
// launch of one rank, which is the local executor with extra steps, and a user who forgot
// mpirun would not notice.
bool under_mpi_launcher() {
  return first_set({"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"}) != nullptr;
}

}  // namespace

bool launched_as_follower_rank(const Scenario& s) {
  if (s.training.executor != ExecutorMode::Mpi) return false;
  const char* rank = first_set({"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"});
  return rank && std::string(rank) != "0";
}

namespace {

// A rank per GPU: before LibTorch first looks at CUDA, a rank whose CUDA_VISIBLE_DEVICES is
// unset sees only GPU (local rank mod the GPUs this machine has). GPUs are counted from
// /dev/nvidiaN, without initialising CUDA.
void pick_gpu() {
  if (std::getenv("CUDA_VISIBLE_DEVICES")) return;
  const char* local = first_set({"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID"});
  if (!local) return;
  int gpus = 0;
  while (fs::exists("/dev/nvidia" + std::to_string(gpus))) ++gpus;
  if (gpus == 0) return;
  setenv("CUDA_VISIBLE_DEVICES", std::to_string(std::atoi(local) % gpus).c_str(), 1);
}

// A resumed run's rank > 0 continues its own copy of the output files (the recorder truncates
// them to the checkpoint's sizes).
void copy_outputs(const std::string& from, const std::string& to) {
  for (const auto& entry : fs::directory_iterator(from))
    if (entry.is_regular_file() && entry.path().filename() != "checkpoint.bin")
      fs::copy_file(entry.path(), fs::path(to) / entry.path().filename(), fs::copy_options::overwrite_existing);
}

}  // namespace

MpiRun::MpiRun(Scenario& s, RunOptions& options) {
  if (s.training.timing_only)
    throw s.error_at("training.executor", "mpi spreads training jobs, and a timing-only run trains none: use local");
  if (!under_mpi_launcher())
    throw s.error_at("training.executor",
                     "mpi needs an MPI launcher: start it as `mpirun -np N fedgrid run ...` (or srun), or use local");
  pick_gpu();
  try {
    exchange_ = JobExchange::open_mpi();
  } catch (const std::runtime_error& e) {
    throw s.error_at("training.executor", e.what());
  }
  options.exchange = exchange_.get();
  if (leads()) return;
  spdlog::set_level(std::max(spdlog::get_level(), spdlog::level::warn));
  fs::path folder = fs::temp_directory_path() / fmt::format("fedgrid-rank{}-XXXXXX", exchange_->rank());
  std::string name = folder.string();
  if (!mkdtemp(name.data())) throw std::runtime_error("cannot make a scratch folder " + folder.string());
  scratch_ = name;
  if (!options.resume_from.empty()) copy_outputs(s.output.dir, scratch_);
  s.output.dir = scratch_;
}

MpiRun::~MpiRun() {
  if (!scratch_.empty()) {
    std::error_code ignored;
    fs::remove_all(scratch_, ignored);
  }
}

int MpiRun::run(const std::function<int()>& body) {
  std::exception_ptr failure;
  int code = 0;
  try {
    code = body();
  } catch (...) {
    failure = std::current_exception();
  }
  if (!failure) {
    exchange_->finish();
    return code;
  }
  if (!exchange_->running()) {  // refused at set-up, every rank alike: rank 0 says why
    exchange_->finish();
    if (leads()) std::rethrow_exception(failure);
    return 2;
  }
  fmt::print(stderr, "fedgrid: rank {} of {} ends the MPI launch:\n", exchange_->rank(), exchange_->ranks());
  code = reporting_errors([&]() -> int { std::rethrow_exception(failure); });
  if (!scratch_.empty()) {
    std::error_code ignored;
    fs::remove_all(scratch_, ignored);
  }
  exchange_->abort(code);
}

}  // namespace fedgrid

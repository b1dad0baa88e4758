#include "sim/sweep/sweep_ranks.hpp"

#include <cstdlib>
#include <stdexcept>

namespace fedgrid {
namespace {

class SingleRank final : public SweepRanks {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::optional<Request> next_request() override { return std::nullopt; }
  void reply(int, std::optional<size_t>) override { throw std::logic_error("a single rank has no one to reply to"); }
  std::optional<size_t> ask(const std::optional<CellOutcome>&) override {
    throw std::logic_error("a single rank has no one to ask");
  }
  [[noreturn]] void abort(int exit_code) override { std::exit(exit_code); }
};

}  // namespace

bool launched_by_mpi() {
  // OpenMPI's mpirun, and PMIx / PMI launchers (srun, hydra) of other implementations.
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (std::getenv(var)) return true;
  return false;
}

std::unique_ptr<SweepRanks> single_rank() { return std::make_unique<SingleRank>(); }

}  // namespace fedgrid

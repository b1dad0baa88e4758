// Two messages: a slot's request (tag kAsk: the JSON of the outcome it just produced, or ""
// on its first request) and rank 0's reply (tag kCell: a cell index, or -1 for "stop").
#include "sim/sweep/mpi_ranks.hpp"

#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>

extern "C" const char* __lsan_default_suppressions() { return "leak:libevent_core\n"; }
// Whole stacks at every allocation, so that the suppression sees libevent's frames.
extern "C" const char* __asan_default_options() { return "fast_unwind_on_malloc=0"; }
#endif

namespace fedgrid {
namespace {

// OpenMPI 4.1 keeps what MPI_Init allocates (its components, operator tables, argv copies)
// past MPI_Finalize, some of it in plugins it has unloaded by then, and so does its progress
// thread (libevent's loop). Under ./dev.sh sanitize LeakSanitizer would report those as the
// rank binary's leaks: allocations made inside OpenMPI's init and finalize are not tracked,
// and leaks allocated on libevent's loop are suppressed; everything else is still checked.
struct OpenMpiAllocations {
  OpenMpiAllocations() {
#if defined(__SANITIZE_ADDRESS__)
    __lsan_disable();
#endif
  }
  ~OpenMpiAllocations() {
#if defined(__SANITIZE_ADDRESS__)
    __lsan_enable();
#endif
  }
};

constexpr int kAsk = 1;
constexpr int kCell = 2;

class MpiRanks final : public SweepRanks {
 public:
  MpiRanks() {
    {
      OpenMpiAllocations untracked;
      MPI_Init(nullptr, nullptr);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiRanks() override {
    MPI_Barrier(MPI_COMM_WORLD);  // no rank leaves before rank 0 has merged
    OpenMpiAllocations untracked;
    MPI_Finalize();
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  std::optional<Request> next_request() override {
    int waiting = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kAsk, MPI_COMM_WORLD, &waiting, &status);
    if (!waiting) return std::nullopt;
    int length = 0;
    MPI_Get_count(&status, MPI_CHAR, &length);
    std::string text(size_t(length), '\0');
    MPI_Recv(text.data(), length, MPI_CHAR, status.MPI_SOURCE, kAsk, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    Request r;
    r.from = status.MPI_SOURCE;
    if (!text.empty()) r.done = outcome_from_json(text);
    return r;
  }

  void reply(int to, std::optional<size_t> cell) override {
    int64_t index = cell ? int64_t(*cell) : -1;
    MPI_Send(&index, 1, MPI_INT64_T, to, kCell, MPI_COMM_WORLD);
  }

  std::optional<size_t> ask(const std::optional<CellOutcome>& done) override {
    std::string text = done ? to_json(*done) : std::string();
    MPI_Send(text.data(), int(text.size()), MPI_CHAR, 0, kAsk, MPI_COMM_WORLD);
    int64_t index = -1;
    MPI_Recv(&index, 1, MPI_INT64_T, 0, kCell, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return index < 0 ? std::nullopt : std::optional<size_t>(size_t(index));
  }

  [[noreturn]] void abort(int exit_code) override {
    MPI_Abort(MPI_COMM_WORLD, exit_code);
    std::abort();  // MPI_Abort does not return
  }

 private:
  int rank_ = 0, size_ = 1;
};

}  // namespace

std::unique_ptr<SweepRanks> mpi_ranks() { return std::make_unique<MpiRanks>(); }

}  // namespace fedgrid

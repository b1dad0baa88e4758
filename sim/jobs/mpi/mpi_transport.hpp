#pragma once
// The few MPI calls the MPI executor makes (sim/jobs/mpi/job_exchange.hpp), behind an interface
// without mpi.h. libsimgrid, which fedgrid links, exports its own MPI_* (SMPI), so OpenMPI's
// calls live in a module of their own, libfedgrid_mpi_transport.so (mpi_transport_openmpi.cpp),
// loaded with dlopen(RTLD_DEEPBIND) so that its MPI_* resolve to OpenMPI and fedgrid's to
// nothing (sweeps meet the same clash with a separate rank binary: sim/sweep/sweep_rank_main.cpp).
// Calls are serialised: one thread at a time (MPI_THREAD_SERIALIZED).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fedgrid {

class MpiTransport {
 public:
  virtual ~MpiTransport() = default;  // MPI_Finalize
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Collective: the lowest rank that says `failed`, with its message; nullopt when none did.
  virtual std::optional<std::pair<int, std::string>> first_failure(bool failed, const std::string& message) = 0;
  // Starts sending `bytes` to every other rank; they stay alive until sends_done() says so.
  virtual void send_to_others(std::shared_ptr<const std::vector<char>> bytes) = 0;
  // True when every send started has completed (completed ones are let go).
  virtual bool sends_done() = 0;
  // A message that has arrived from another rank, if any: its sender and bytes.
  virtual std::optional<std::pair<int, std::vector<char>>> poll() = 0;
  virtual void barrier() = 0;
  // Ends every rank of the launch with `code` (MPI_Abort).
  [[noreturn]] virtual void abort(int code) = 0;
};

}  // namespace fedgrid

// The module's one entry point: MPI_Init_thread and the world communicator, or null with the
// reason in `error`.
extern "C" fedgrid::MpiTransport* fedgrid_open_mpi_transport(char* error, int error_size);

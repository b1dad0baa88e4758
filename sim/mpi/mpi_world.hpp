#pragma once
// The MPI calls fedgrid makes, behind an interface without mpi.h, for its two MPI users: the
// MPI executor (sim/jobs/mpi/job_exchange.hpp) and sweeps under mpirun (sim/sweep/mpi_ranks.hpp).
// libsimgrid, which fedgrid links, exports its own MPI_* (SMPI), so OpenMPI's calls live in a
// module of their own, libfedgrid_openmpi.so (mpi_world_openmpi.cpp), which open_mpi_world() loads
// with dlopen(RTLD_DEEPBIND) so that its MPI_* resolve to OpenMPI and fedgrid's to nothing.
// Messages are byte strings with a tag; what they say is the user's business. Calls are
// serialised: one thread at a time (MPI_THREAD_SERIALIZED).
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace fedgrid {

class MpiWorld {
 public:
  virtual ~MpiWorld() = default;  // MPI_Finalize
  virtual int rank() const = 0;
  virtual int size() const = 0;

  // Sends `bytes` to rank `to`, returning once the buffer may be reused (MPI_Send).
  virtual void send(int to, int tag, const std::vector<char>& bytes) = 0;
  // Starts sending `bytes` to rank `to`; they stay alive until sends_done() says so.
  virtual void start_send(int to, int tag, std::shared_ptr<const std::vector<char>> bytes) = 0;
  // True when every send started has completed (completed ones are let go).
  virtual bool sends_done() = 0;
  // A message with `tag` that has arrived from any rank, if any (does not wait): sender, bytes.
  virtual std::optional<std::pair<int, std::vector<char>>> poll(int tag) = 0;
  // Waits for the next message with `tag` from rank `from`.
  virtual std::vector<char> receive(int from, int tag) = 0;

  // Collectives: the least of every rank's `value`; rank `root`'s `bytes` on every rank.
  virtual int min_over_ranks(int value) = 0;
  virtual std::vector<char> broadcast(std::vector<char> bytes, int root) = 0;
  virtual void barrier() = 0;
  // Ends every rank of the launch with `code` (MPI_Abort).
  [[noreturn]] virtual void abort(int code) = 0;
};

// Loads libfedgrid_openmpi.so from the running executable's folder and joins the launch
// (MPI_Init_thread). Throws std::runtime_error saying why it cannot (no MPI in this build).
std::unique_ptr<MpiWorld> open_mpi_world();

}  // namespace fedgrid

// The module's one entry point: MPI_Init_thread and the world communicator, or null with the
// reason in `error`.
extern "C" fedgrid::MpiWorld* fedgrid_open_mpi_world(char* error, int error_size);

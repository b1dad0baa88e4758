// MpiWorld on OpenMPI: the body of libfedgrid_openmpi.so (see mpi_world.hpp).
#include <mpi.h>

#include <cstdio>
#include <list>

#include "sim/mpi/mpi_world.hpp"

namespace fedgrid {
namespace {

class OpenMpiWorld final : public MpiWorld {
 public:
  OpenMpiWorld() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~OpenMpiWorld() override { MPI_Finalize(); }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  void send(int to, int tag, const std::vector<char>& bytes) override {
    MPI_Send(bytes.data(), int(bytes.size()), MPI_BYTE, to, tag, MPI_COMM_WORLD);
  }

  void start_send(int to, int tag, std::shared_ptr<const std::vector<char>> bytes) override {
    Pending& p = pending_.emplace_back(Pending{std::move(bytes), MPI_REQUEST_NULL});
    MPI_Isend(p.bytes->data(), int(p.bytes->size()), MPI_BYTE, to, tag, MPI_COMM_WORLD, &p.request);
  }

  bool sends_done() override {
    for (auto it = pending_.begin(); it != pending_.end();) {
      int done = 0;
      MPI_Test(&it->request, &done, MPI_STATUS_IGNORE);
      it = done ? pending_.erase(it) : std::next(it);
    }
    return pending_.empty();
  }

  std::optional<std::pair<int, std::vector<char>>> poll(int tag) override {
    int arrived = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &arrived, &status);
    if (!arrived) return std::nullopt;
    return std::make_pair(status.MPI_SOURCE, take(status));
  }

  std::vector<char> receive(int from, int tag) override {
    MPI_Status status;
    MPI_Probe(from, tag, MPI_COMM_WORLD, &status);
    return take(status);
  }

  int min_over_ranks(int value) override {
    int least = value;
    MPI_Allreduce(&value, &least, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return least;
  }

  std::vector<char> broadcast(std::vector<char> bytes, int root) override {
    int length = int(bytes.size());
    MPI_Bcast(&length, 1, MPI_INT, root, MPI_COMM_WORLD);
    bytes.resize(size_t(length));
    MPI_Bcast(bytes.data(), length, MPI_BYTE, root, MPI_COMM_WORLD);
    return bytes;
  }

  void barrier() override { MPI_Barrier(MPI_COMM_WORLD); }
  [[noreturn]] void abort(int code) override {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);  // MPI_Abort does not return
  }

 private:
  // The probed message itself.
  std::vector<char> take(const MPI_Status& probed) {
    int count = 0;
    MPI_Get_count(&probed, MPI_BYTE, &count);
    std::vector<char> bytes(static_cast<size_t>(count));
    MPI_Recv(bytes.data(), count, MPI_BYTE, probed.MPI_SOURCE, probed.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return bytes;
  }

  struct Pending {
    std::shared_ptr<const std::vector<char>> bytes;
    MPI_Request request;
  };
  int rank_ = 0, size_ = 1;
  std::list<Pending> pending_;  // a list: MPI holds the requests' addresses
};

}  // namespace
}  // namespace fedgrid

extern "C" fedgrid::MpiWorld* fedgrid_open_mpi_world(char* error, int error_size) {
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
    std::snprintf(error, size_t(error_size), "MPI_Init_thread failed");
    return nullptr;
  }
  if (provided < MPI_THREAD_SERIALIZED) {
    std::snprintf(error, size_t(error_size), "this MPI gives no MPI_THREAD_SERIALIZED (level %d)", provided);
    MPI_Finalize();
    return nullptr;
  }
  return new fedgrid::OpenMpiWorld();
}

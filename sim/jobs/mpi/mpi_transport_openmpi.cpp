// MpiTransport on OpenMPI: the body of libfedgrid_mpi_transport.so (see mpi_transport.hpp).
// Messages are byte strings on one tag; what they say is job_exchange.cpp's business.
#include <mpi.h>

#include <cstdio>
#include <list>

#include "sim/jobs/mpi/mpi_transport.hpp"

namespace fedgrid {
namespace {

constexpr int kTag = 37;

class OpenMpiTransport final : public MpiTransport {
 public:
  OpenMpiTransport() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~OpenMpiTransport() override { MPI_Finalize(); }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  std::optional<std::pair<int, std::string>> first_failure(bool failed, const std::string& message) override {
    int mine = failed ? rank_ : size_, first = size_;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == size_) return std::nullopt;
    int length = int(message.size());
    MPI_Bcast(&length, 1, MPI_INT, first, MPI_COMM_WORLD);
    std::string text = rank_ == first ? message : std::string(size_t(length), ' ');
    MPI_Bcast(text.data(), length, MPI_CHAR, first, MPI_COMM_WORLD);
    return std::make_pair(first, text);
  }

  void send_to_others(std::shared_ptr<const std::vector<char>> bytes) override {
    for (int to = 0; to < size_; ++to) {
      if (to == rank_) continue;
      Pending& p = pending_.emplace_back(Pending{bytes, MPI_REQUEST_NULL});
      MPI_Isend(bytes->data(), int(bytes->size()), MPI_BYTE, to, kTag, MPI_COMM_WORLD, &p.request);
    }
  }

  bool sends_done() override {
    for (auto it = pending_.begin(); it != pending_.end();) {
      int done = 0;
      MPI_Test(&it->request, &done, MPI_STATUS_IGNORE);
      it = done ? pending_.erase(it) : std::next(it);
    }
    return pending_.empty();
  }

  std::optional<std::pair<int, std::vector<char>>> poll() override {
    int arrived = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kTag, MPI_COMM_WORLD, &arrived, &status);
    if (!arrived) return std::nullopt;
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    std::vector<char> bytes(static_cast<size_t>(count));
    MPI_Recv(bytes.data(), count, MPI_BYTE, status.MPI_SOURCE, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return std::make_pair(status.MPI_SOURCE, std::move(bytes));
  }

  void barrier() override { MPI_Barrier(MPI_COMM_WORLD); }
  [[noreturn]] void abort(int code) override {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);
  }

 private:
  struct Pending {
    std::shared_ptr<const std::vector<char>> bytes;
    MPI_Request request;
  };
  int rank_ = 0, size_ = 1;
  std::list<Pending> pending_;  // a list: MPI holds the requests' addresses
};

}  // namespace
}  // namespace fedgrid

extern "C" fedgrid::MpiTransport* fedgrid_open_mpi_transport(char* error, int error_size) {
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
  return new fedgrid::OpenMpiTransport();
}

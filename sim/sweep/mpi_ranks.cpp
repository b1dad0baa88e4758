// Two messages: a slot's request (tag kAsk: the JSON of the outcome it just produced, or ""
// on its first request) and rank 0's reply (tag kCell: a cell index, or -1 for "stop").
#include "sim/sweep/mpi_ranks.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "sim/mpi/mpi_world.hpp"

namespace fedgrid {
namespace {

constexpr int kAsk = 1;
constexpr int kCell = 2;

class MpiRanks final : public SweepRanks {
 public:
  MpiRanks() : world_(open_mpi_world()) {}
  ~MpiRanks() override { world_->barrier(); }  // no rank leaves before rank 0 has merged
  int rank() const override { return world_->rank(); }
  int size() const override { return world_->size(); }

  std::optional<Request> next_request() override {
    auto message = world_->poll(kAsk);
    if (!message) return std::nullopt;
    Request r;
    r.from = message->first;
    const std::vector<char>& text = message->second;
    if (!text.empty()) r.done = outcome_from_json(std::string(text.begin(), text.end()));
    return r;
  }

  void reply(int to, std::optional<size_t> cell) override {
    const int64_t index = cell ? int64_t(*cell) : -1;
    std::vector<char> bytes(sizeof index);
    std::memcpy(bytes.data(), &index, sizeof index);
    world_->send(to, kCell, bytes);
  }

  std::optional<size_t> ask(const std::optional<CellOutcome>& done) override {
    const std::string text = done ? to_json(*done) : std::string();
    world_->send(0, kAsk, std::vector<char>(text.begin(), text.end()));
    const std::vector<char> bytes = world_->receive(0, kCell);
    int64_t index = -1;
    std::memcpy(&index, bytes.data(), sizeof index);
    return index < 0 ? std::nullopt : std::optional<size_t>(size_t(index));
  }

  [[noreturn]] void abort(int exit_code) override {
    world_->abort(exit_code);
    std::abort();  // not reached; GCC does not see [[noreturn]] through a virtual call
  }

 private:
  std::unique_ptr<MpiWorld> world_;  // destroyed after the barrier: MPI_Finalize
};

}  // namespace

std::unique_ptr<SweepRanks> mpi_ranks() { return std::make_unique<MpiRanks>(); }

}  // namespace fedgrid

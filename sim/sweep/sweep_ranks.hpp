#pragma once
// The processes a sweep is spread over. Alone, there is one rank and it runs every cell.
// Under `mpirun -np N`, rank 0 hands cells out as other ranks' slots ask for them (so fast
// and slow cells balance), runs cells of its own meanwhile, and merges every outcome; the
// outcomes travel back by MPI, so the ranks need not share a file system for the merge.
#include <memory>
#include <optional>

#include "sim/sweep/sweep_cell.hpp"

namespace fedgrid {

class SweepRanks {
 public:
  virtual ~SweepRanks() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;

  // Rank 0's side. A slot of another rank asking for a cell, with the outcome of the cell it
  // ran before (none on its first request).
  struct Request {
    int from = 0;
    std::optional<CellOutcome> done;
  };
  virtual std::optional<Request> next_request() = 0;           // does not wait
  virtual void reply(int to, std::optional<size_t> cell) = 0;   // no cell: that slot stops

  // The other ranks' side: report `done` and wait for the next cell (none: stop).
  virtual std::optional<size_t> ask(const std::optional<CellOutcome>& done) = 0;

  // Ends every rank at once (after an internal failure on one of them).
  [[noreturn]] virtual void abort(int exit_code) = 0;
};

// True when this process was started by mpirun / an MPI launcher.
bool launched_by_mpi();

// One process running every cell itself. (The MPI world is mpi_ranks.hpp.)
std::unique_ptr<SweepRanks> single_rank();

}  // namespace fedgrid

#pragma once
// The MPI world as SweepRanks: MPI_Init when made, a barrier and MPI_Finalize when destroyed.
// Only the fedgrid-sweep-rank binary links it (sim/sweep_rank_main.cpp says why).
#include <memory>

#include "sim/sweep/sweep_ranks.hpp"

namespace fedgrid {

std::unique_ptr<SweepRanks> mpi_ranks();

}  // namespace fedgrid

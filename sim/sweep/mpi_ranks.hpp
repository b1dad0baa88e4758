#pragma once
// The MPI world as SweepRanks, through fedgrid's MPI module (sim/mpi/mpi_world.hpp): MPI_Init
// when made, a barrier and MPI_Finalize when destroyed.
#include <memory>

#include "sim/sweep/sweep_ranks.hpp"

namespace fedgrid {

// Throws std::runtime_error when this fedgrid cannot join the launch (built without MPI).
std::unique_ptr<SweepRanks> mpi_ranks();

}  // namespace fedgrid

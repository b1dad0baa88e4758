// fedgrid-sweep-rank: one MPI rank of `mpirun -np N fedgrid sweep SWEEP.yaml`. `fedgrid sweep`
// execs it when an MPI launcher started it: libsimgrid, which fedgrid links, exports its own
// MPI_* and PMPI_* (SMPI) and would take OpenMPI's calls, so the rank lives in a binary
// without SimGrid. It runs each cell as a `fedgrid run` child, like a sweep without MPI.
//
// usage (from fedgrid, not for users): fedgrid-sweep-rank FEDGRID SWEEP.yaml JOBS [OUT]
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "sim/core/heap_policy.hpp"
#include "sim/scenario/key_transfer.hpp"
#include "sim/sweep/mpi_ranks.hpp"
#include "sim/sweep/sweep.hpp"

int main(int argc, char** argv) {
  fedgrid::keep_training_buffers_in_heap();
  if (argc < 4 || argc > 5) {
    std::fprintf(stderr, "fedgrid-sweep-rank is started by `fedgrid sweep` under mpirun\n");
    return 2;
  }
  const std::optional<std::string> out = argc == 5 ? std::optional<std::string>(argv[4]) : std::nullopt;
  if (const char* keys = std::getenv(fedgrid::kAlgorithmKeysVariable))
    fedgrid::install_keys(fedgrid::keys_from_yaml(keys));  // fedgrid's algorithms' own keys
  auto ranks = fedgrid::mpi_ranks();
  return fedgrid::sweep_command(argv[2], out, std::stoi(argv[3]), argv[1], *ranks);
}

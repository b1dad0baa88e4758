// fedgrid-sweep-rank: one MPI rank of `mpirun -np N fedgrid sweep SWEEP.yaml`. `fedgrid sweep`
// execs it when an MPI launcher started it: libsimgrid, which fedgrid links, exports its own
// MPI_* and PMPI_* (SMPI) and would take OpenMPI's calls, so the rank lives in a binary
// without SimGrid. It runs each cell as a `fedgrid run` child, like a sweep without MPI.
//
// usage (from fedgrid, not for users): fedgrid-sweep-rank FEDGRID SWEEP.yaml JOBS [--out=DIR]
//   [--retry-failed] [--set=KEY=VALUE ...]
#include <cstdio>
#include <cstdlib>
#include <string>

#include "sim/core/heap_policy.hpp"
#include "sim/scenario/key_transfer.hpp"
#include "sim/sweep/mpi_ranks.hpp"
#include "sim/sweep/sweep.hpp"

int main(int argc, char** argv) {
  fedgrid::keep_training_buffers_in_heap();
  if (argc < 4) {
    std::fprintf(stderr, "fedgrid-sweep-rank is started by `fedgrid sweep` under mpirun\n");
    return 2;
  }
  fedgrid::SweepRequest request;
  request.jobs = std::stoi(argv[3]);
  for (int i = 4; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--out=", 0) == 0) request.out = a.substr(6);
    else if (a.rfind("--set=", 0) == 0) request.overrides.push_back(a.substr(6));
    else if (a == "--retry-failed") request.retry_failed = true;
    else {
      std::fprintf(stderr, "fedgrid-sweep-rank: unexpected argument '%s'\n", argv[i]);
      return 2;
    }
  }
  if (const char* keys = std::getenv(fedgrid::kAlgorithmKeysVariable))
    fedgrid::install_algorithm_keys_from_yaml(keys);  // fedgrid's algorithms' own keys
  auto ranks = fedgrid::mpi_ranks();
  return fedgrid::sweep_command(argv[2], request, argv[1], *ranks);
}

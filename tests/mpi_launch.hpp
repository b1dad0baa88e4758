#pragma once
// What the tests that start fedgrid under mpirun need before they can run.
#include <cstdlib>
#include <filesystem>

#include "tests/helpers.hpp"

namespace fedgrid::test {

// Why the tests that start fedgrid under mpirun cannot run here, or null: fedgrid's MPI module
// (sim/mpi/mpi_world.hpp) is built next to fedgrid when libopenmpi-dev was found, and an ASan
// build cannot load it.
inline const char* why_no_mpi() {
#if defined(__SANITIZE_ADDRESS__)
  return "a sanitizer build cannot load fedgrid's MPI module (RTLD_DEEPBIND)";
#else
  if (!std::filesystem::exists(std::filesystem::path(fedgrid_binary()).parent_path() / "libfedgrid_openmpi.so"))
    return "fedgrid was built without MPI";
  if (std::system("command -v mpirun >/dev/null") != 0) return "no mpirun on PATH";
  return nullptr;
#endif
}

}  // namespace fedgrid::test

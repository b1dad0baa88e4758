// open_mpi_world(): the loader of libfedgrid_openmpi.so (see mpi_world.hpp).
#include "sim/mpi/mpi_world.hpp"

#include <dlfcn.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace fedgrid {

std::unique_ptr<MpiWorld> open_mpi_world() {
#if defined(__SANITIZE_ADDRESS__)
  // ASan's dlopen ends the process on RTLD_DEEPBIND (google/sanitizers issue 611).
  throw std::runtime_error("a sanitizer build cannot load the MPI module (it needs RTLD_DEEPBIND)");
#elif defined(FEDGRID_MPI_MODULE)
  // Next to the executable that runs (fedgrid, or the tests' binary in the same build folder).
  const auto folder = std::filesystem::read_symlink("/proc/self/exe").parent_path();
  const std::string module = (folder / FEDGRID_MPI_MODULE).string();
  // RTLD_DEEPBIND: the module's MPI_* are OpenMPI's, not SimGrid's (mpi_world.hpp);
  // RTLD_GLOBAL: OpenMPI's own plugins, which it loads in turn, find libmpi's symbols.
  void* handle = dlopen(module.c_str(), RTLD_NOW | RTLD_GLOBAL | RTLD_DEEPBIND);
  if (!handle) throw std::runtime_error("cannot load " + module + ": " + dlerror());
  auto open = reinterpret_cast<decltype(&fedgrid_open_mpi_world)>(dlsym(handle, "fedgrid_open_mpi_world"));
  if (!open) throw std::runtime_error(module + " has no fedgrid_open_mpi_world");
  char error[256] = "";
  MpiWorld* world = open(error, sizeof error);
  if (!world) throw std::runtime_error(std::string("cannot join the MPI launch: ") + error);
  return std::unique_ptr<MpiWorld>(world);
#else
  throw std::runtime_error("this fedgrid was built without MPI (install libopenmpi-dev and build again)");
#endif
}

}  // namespace fedgrid

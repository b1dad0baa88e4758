// load_torch() (torch_module.hpp), and what compute.hpp answers without loading LibTorch: the
// LibTorch version the torch libraries were built against, and the CPU's bf16 support.
#include "sim/jobs/torch_module.hpp"

#include <dlfcn.h>
#include <torch/version.h>  // macros only: no LibTorch code

#include <filesystem>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>

#include "sim/jobs/compute.hpp"

namespace fedgrid {
namespace {

std::once_flag loaded_once;

// The folder of this library (libfedgrid_jobs.so): the torch libraries are built next to it.
std::filesystem::path own_folder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&load_torch), &info) == 0 || info.dli_fname == nullptr)
    throw std::runtime_error("cannot find the folder of fedgrid's libraries (dladdr failed)");
  return std::filesystem::path(info.dli_fname).parent_path();
}

}  // namespace

void load_torch() {
  std::call_once(loaded_once, [] {
    // FEDGRID_TORCH_MODULES: the torch libraries' file names, space-separated, dependencies
    // first (CMakeLists.txt, fedgrid_wing).
    std::istringstream names(FEDGRID_TORCH_MODULES);
    const auto folder = own_folder();
    for (std::string name; names >> name;) {
      const std::string path = (folder / name).string();
      if (dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr)
        throw std::runtime_error("cannot load LibTorch's side of fedgrid, " + path + ": " + dlerror());
    }
  });
}

std::string torch_version() { return TORCH_VERSION; }

bool cpu_has_bf16() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512bf16");
}

}  // namespace fedgrid

#pragma once
// LibTorch, loaded when a run needs it. fedgrid's torch sources are built into libraries of their
// own, one per wing that has them (libfedgrid_models_torch.so, libfedgrid_jobs_torch.so,
// libfedgrid_algorithms_torch.so), which the fedgrid executable does not link: LibTorch's ~300
// libraries cost about 0.6 CPU s and 160 MB before main(), and `--version`, `list`, `validate`
// and timing-only runs use none of it (docs/performance.md, start-up). load_torch() opens them
// with RTLD_GLOBAL; the torch-free code's calls into them (the *_torch members of local works,
// compute.hpp's functions) are bound by the dynamic linker at each call's first use (lazy
// binding). So call load_torch() before anything that trains, scores a model or draws weights.
// A torch function called without it ends the process with "symbol lookup error" naming it: a
// bug, which Startup.* in the tests would show. LD_BIND_NOW=1 cannot start fedgrid for the
// same reason (it binds every call at start, before LibTorch is there).
namespace fedgrid {

// Once per process (later calls return at once); thread-safe. Throws std::runtime_error naming
// the library that could not be loaded and why.
void load_torch();

}  // namespace fedgrid

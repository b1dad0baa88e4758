// Every difference between the LibTorch generations fedgrid builds against, in one place:
// Debian 12's 1.13 (CI) and the 2.x every CUDA LibTorch ships today (2.11 checked by
// ../shared/torch2/check.sh, which compiles every translation unit against its headers).
// Keyed on TORCH_VERSION_MAJOR/MINOR; code elsewhere uses only the names below.
#pragma once

#include <torch/version.h>

#define FEDGRID_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) || (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))


// c10::Allocator::allocate lost its const in 2.3 (it changes the allocator's state):
//   c10::DataPtr allocate(size_t n) FEDGRID_ALLOCATE_CONST override;
#if FEDGRID_TORCH_AT_LEAST(2, 3)
#define FEDGRID_ALLOCATE_CONST
#else
#define FEDGRID_ALLOCATE_CONST const
#endif

// c10::Allocator::copy_data (copies between two of the allocator's blocks) is pure virtual
// since 2.2. An allocator defines it always; before 2.2 it has no `override` (1.13 has no such
// virtual, and the member is never called):
//   void copy_data(void* dest, const void* src, size_t n) const FEDGRID_COPY_DATA_OVERRIDE;
#if FEDGRID_TORCH_AT_LEAST(2, 2)
#define FEDGRID_COPY_DATA_OVERRIDE override
#else
#define FEDGRID_COPY_DATA_OVERRIDE
#endif

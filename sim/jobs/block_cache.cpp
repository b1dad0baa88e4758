// LibTorch's CPU allocator with large blocks kept for reuse. glibc hands blocks over 32 MiB
// (over 64 MiB in a worker thread's arena, always) straight back to the system, so each
// evaluation batch of 1,000 samples (the cnn's first activation alone is 74 MB) page-faulted
// its buffers in afresh: most of an evaluation's time. Blocks come from c10::alloc_cpu as
// before (same alignment), so results do not change; only where memory lives does.
#include <c10/core/CPUAllocator.h>
#include <c10/core/impl/alloc_cpu.h>

#include <cstring>
#include <list>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/jobs/compute.hpp"
#include "sim/jobs/torch_compat.hpp"

namespace fedgrid {
namespace {

constexpr size_t kLarge = size_t{1} << 20;    // smaller blocks: glibc reuses them well itself
constexpr size_t kKeepAtMost = size_t{512} << 20;  // kept bytes; the oldest go first beyond it

struct Blocks {
  std::mutex mutex;
  std::unordered_map<void*, size_t> in_use;  // large blocks handed out, with their size class
  std::list<std::pair<size_t, void*>> kept;  // freed large blocks, oldest first
  size_t kept_bytes = 0;
};

Blocks& blocks() {
  static Blocks* b = new Blocks;  // never destroyed: tensors may be freed during exit
  return *b;
}

// Sizes round up to whole MiB, so batches of nearly one size share blocks.
size_t size_class(size_t n) { return (n + kLarge - 1) / kLarge * kLarge; }

void* take(size_t n) {
  if (n < kLarge) return c10::alloc_cpu(n);
  const size_t s = size_class(n);
  Blocks& b = blocks();
  {
    // The smallest kept block that fits, up to 4x the request: a batch's trailing part (the
    // last ~300 samples of a hospital's split) borrows full batches' blocks instead of
    // keeping blocks of its own size that no other batch would use.
    std::lock_guard lock(b.mutex);
    auto best = b.kept.end();
    for (auto it = b.kept.begin(); it != b.kept.end(); ++it)
      if (it->first >= s && it->first <= 4 * s && (best == b.kept.end() || it->first < best->first)) best = it;
    if (best != b.kept.end()) {
      const auto [size, p] = *best;
      b.kept.erase(best);
      b.kept_bytes -= size;
      b.in_use.emplace(p, size);
      return p;
    }
  }
  void* p = c10::alloc_cpu(s);
  std::lock_guard lock(b.mutex);
  b.in_use.emplace(p, s);
  return p;
}

void give_back(void* p) {
  if (!p) return;
  Blocks& b = blocks();
  std::vector<void*> to_free;
  {
    std::lock_guard lock(b.mutex);
    auto it = b.in_use.find(p);
    if (it == b.in_use.end()) {
      to_free.push_back(p);  // a small block
    } else {
      b.kept.emplace_back(it->second, p);
      b.kept_bytes += it->second;
      b.in_use.erase(it);
      while (b.kept_bytes > kKeepAtMost) {
        b.kept_bytes -= b.kept.front().first;
        to_free.push_back(b.kept.front().second);
        b.kept.pop_front();
      }
    }
  }
  for (void* q : to_free) c10::free_cpu(q);
}

void free_small(void* p) { c10::free_cpu(p); }

struct CachingCpuAllocator final : c10::Allocator {
  c10::DataPtr allocate(size_t n) FEDGRID_ALLOCATE_CONST override {
    void* p = take(n);
    return {p, p, n < kLarge ? &free_small : &give_back, c10::Device(c10::DeviceType::CPU)};
  }
  // raw_allocate's blocks (oneDNN's scratch) come back here, small or large.
  c10::DeleterFnPtr raw_deleter() const override { return &give_back; }
  // All blocks are plain CPU memory (copy-on-write tensors materialise through this).
  void copy_data(void* dest, const void* src, size_t n) const FEDGRID_COPY_DATA_OVERRIDE {
    if (n > 0) std::memcpy(dest, src, n);
  }
};

}  // namespace

void cache_large_blocks() {
  static std::once_flag once;
  std::call_once(once, [] { c10::SetCPUAllocator(new CachingCpuAllocator, /*priority=*/1); });
}

void release_cached_blocks() {
  Blocks& b = blocks();
  std::list<std::pair<size_t, void*>> kept;
  {
    std::lock_guard lock(b.mutex);
    kept.swap(b.kept);
    b.kept_bytes = 0;
  }
  for (auto& [s, p] : kept) c10::free_cpu(p);
}

}  // namespace fedgrid

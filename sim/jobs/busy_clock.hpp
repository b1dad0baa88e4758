#pragma once
// Wall time during which at least one job of a kind runs on the executor (perf.json's
// training seconds): jobs that overlap on several workers count once, so FLOPs over it is what
// the whole machine achieved, comparable with its peak (bench/peak_flops.cpp).
#include <chrono>
#include <mutex>

namespace fedgrid {

class BusyClock {
 public:
  // Held for the length of one job, on the worker that runs it.
  class Scope {
   public:
    explicit Scope(BusyClock& c) : c_(c) { c_.enter(); }
    ~Scope() { c_.leave(); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    BusyClock& c_;
  };

  double seconds() const {
    std::lock_guard lock(mutex_);
    return seconds_;
  }

 private:
  void enter() {
    std::lock_guard lock(mutex_);
    if (running_++ == 0) since_ = std::chrono::steady_clock::now();
  }
  void leave() {
    std::lock_guard lock(mutex_);
    if (--running_ == 0) seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - since_).count();
  }

  mutable std::mutex mutex_;
  int running_ = 0;
  std::chrono::steady_clock::time_point since_;
  double seconds_ = 0;
};

}  // namespace fedgrid

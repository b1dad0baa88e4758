#pragma once
// The compute executor: a pool of worker threads that runs LibTorch jobs outside SimGrid's
// actor contexts (torch keeps thread-local state that actors would share, and its OpenMP
// pools do not belong on small actor stacks). Actors submit jobs and get futures; results
// never depend on which worker ran a job, because every job carries its own seed.
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace fedgrid {

class Executor {
 public:
  // `worker_init` runs once on every worker thread before its first job (torch thread setup).
  Executor(int workers, std::function<void()> worker_init) {
    for (int i = 0; i < workers; ++i)
      threads_.emplace_back([this, worker_init] {
        if (worker_init) worker_init();
        loop();
      });
  }
  ~Executor() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    ready_.notify_all();
    for (auto& t : threads_) t.join();
  }
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  int workers() const { return int(threads_.size()); }

  template <class F>
  auto submit(F&& job) -> std::future<decltype(job())> {
    using R = decltype(job());
    auto task = std::make_shared<std::packaged_task<R()>>(std::forward<F>(job));
    std::future<R> result = task->get_future();
    {
      std::lock_guard lock(mutex_);
      queue_.emplace_back([task] { (*task)(); });
    }
    ready_.notify_one();
    return result;
  }

 private:
  void loop() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      job();
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> queue_;
  std::vector<std::thread> threads_;
  bool stopping_ = false;
};

}  // namespace fedgrid

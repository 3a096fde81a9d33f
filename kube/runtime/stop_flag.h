// A stop request that every sleeping thread of the operator wakes for: set once (by a signal,
// a fatal error or a lost lease), never cleared.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>

#include "base/clock.h"

namespace ergobench::runtime {

class StopFlag {
 public:
  void Set() {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    changed_.notify_all();
  }
  bool stopped() const { return stop_.load(); }
  const std::atomic<bool>& flag() const { return stop_; }
  // Sleeps for `d`, or less if a stop comes first.
  void Sleep(Duration d) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait_for(lock, d, [this] { return stop_.load(); });
  }

 private:
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::condition_variable changed_;
};

}  // namespace ergobench::runtime

// Time behind an interface, so that what depends on it (backoff, the work queue's delays, lease
// expiry, the MLPerf run clock) is tested on a fake clock that tests move by hand.
#pragma once

#include <chrono>
#include <mutex>

namespace ergobench {

using Clock = std::chrono::steady_clock;
using Duration = std::chrono::nanoseconds;

class TimeSource {
 public:
  virtual ~TimeSource() = default;
  virtual Clock::time_point Now() const = 0;
  // Wall time for timestamps the API stores (lease renewals, conditions).
  virtual std::chrono::system_clock::time_point WallNow() const = 0;
};

class RealTime final : public TimeSource {
 public:
  Clock::time_point Now() const override { return Clock::now(); }
  std::chrono::system_clock::time_point WallNow() const override { return std::chrono::system_clock::now(); }
};

// The process's steady and system clocks, for code that takes a TimeSource and is not under test.
inline const TimeSource& SteadyTime() {
  static const RealTime time;
  return time;
}

class FakeTime final : public TimeSource {
 public:
  Clock::time_point Now() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return now_;
  }
  std::chrono::system_clock::time_point WallNow() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return wall_start_ + std::chrono::duration_cast<std::chrono::system_clock::duration>(now_.time_since_epoch());
  }
  void Advance(Duration d) {
    std::lock_guard<std::mutex> lock(mutex_);
    now_ += d;
  }
  // The wall time now, for what stamps or compares wall times (conditions, TTLs, prices); it
  // advances with Advance.
  void SetWallNow(std::chrono::system_clock::time_point wall) {
    std::lock_guard<std::mutex> lock(mutex_);
    wall_start_ = wall - std::chrono::duration_cast<std::chrono::system_clock::duration>(now_.time_since_epoch());
  }

 private:
  mutable std::mutex mutex_;
  Clock::time_point now_{};
  // About 2026: what a FakeTime's wall clock reads before SetWallNow.
  std::chrono::system_clock::time_point wall_start_{std::chrono::hours(24 * 365 * 56)};
};

}  // namespace ergobench

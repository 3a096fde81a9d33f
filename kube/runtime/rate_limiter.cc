#include "kube/runtime/rate_limiter.h"

#include <algorithm>
#include <cmath>

namespace ergobench::runtime {

RateLimiter::RateLimiter(const TimeSource* time, RateLimits limits)
    : time_(time), limits_(limits), tokens_(limits.burst), last_refill_(time->Now()) {}

Duration RateLimiter::When(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  const int failures = failures_[key]++;
  // 2^failures overflows long before the cap matters; compare in double.
  const double exponential = static_cast<double>(limits_.base_delay.count()) * std::pow(2.0, std::min(failures, 62));
  const Duration per_key = exponential >= static_cast<double>(limits_.max_delay.count())
                               ? limits_.max_delay
                               : Duration(static_cast<Duration::rep>(exponential));

  // Token bucket with reservations: a token taken ahead of time makes the wait.
  const Clock::time_point now = time_->Now();
  const double elapsed = std::chrono::duration<double>(now - last_refill_).count();
  tokens_ = std::min(limits_.burst, tokens_ + elapsed * limits_.qps);
  last_refill_ = now;
  tokens_ -= 1;
  const Duration bucket = tokens_ >= 0 ? Duration::zero()
                                       : std::chrono::duration_cast<Duration>(
                                             std::chrono::duration<double>(-tokens_ / limits_.qps));
  return std::max(per_key, bucket);
}

void RateLimiter::Forget(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  failures_.erase(key);
}

int RateLimiter::NumRequeues(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = failures_.find(key);
  return it == failures_.end() ? 0 : it->second;
}

}  // namespace ergobench::runtime

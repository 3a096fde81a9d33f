// How long a failed key waits before its retry, as client-go's default controller rate
// limiter: the larger of a per-key exponential backoff (5 ms doubling to 1000 s) and an
// overall token bucket (10 per second, bursts of 100), so one broken object backs off alone
// and a storm of failures cannot flood the API server.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "base/clock.h"

namespace ergobench::runtime {

struct RateLimits {
  Duration base_delay = std::chrono::milliseconds(5);
  Duration max_delay = std::chrono::seconds(1000);
  double qps = 10;
  double burst = 100;
};

class RateLimiter {
 public:
  RateLimiter(const TimeSource* time, RateLimits limits = {});

  // The delay for this retry of `key`; each call counts as a failure.
  Duration When(const std::string& key);
  // The key succeeded: its backoff starts over.
  void Forget(const std::string& key);
  int NumRequeues(const std::string& key) const;

 private:
  const TimeSource* time_;
  RateLimits limits_;
  mutable std::mutex mutex_;
  std::map<std::string, int> failures_;
  double tokens_;
  Clock::time_point last_refill_;
};

}  // namespace ergobench::runtime

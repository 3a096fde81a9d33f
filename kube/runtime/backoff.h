// Exponential backoff for retries: initial, doubling, capped, with optional jitter so that
// many watchers do not retry in step. The watcher uses 800 ms → 30 s, as kube-rs does.
#pragma once

#include <algorithm>
#include <functional>
#include <random>

#include "base/clock.h"

namespace ergobench::runtime {

// Uniform in [0, 1) from a generator of the calling thread's own: safe on any thread, unlike
// std::rand, whose state every watcher thread would share.
inline double ThreadLocalUniform01() {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  return std::uniform_real_distribution<double>(0, 1)(engine);
}

class Backoff {
 public:
  // `jitter` in [0, 1): each delay is scaled by a factor in [1 - jitter, 1]. `random01`
  // returns numbers in [0, 1); tests leave jitter at 0.
  Backoff(Duration initial, Duration max, double jitter = 0, std::function<double()> random01 = nullptr)
      : initial_(initial), max_(max), jitter_(jitter), random01_(std::move(random01)) {}

  Duration Next() {
    Duration delay = current_ == Duration::zero() ? initial_ : std::min(current_ * 2, max_);
    current_ = delay;
    if (jitter_ > 0 && random01_) {
      delay = std::chrono::duration_cast<Duration>(delay * (1.0 - jitter_ * random01_()));
    }
    return delay;
  }
  void Reset() { current_ = Duration::zero(); }

 private:
  Duration initial_;
  Duration max_;
  double jitter_;
  std::function<double()> random01_;
  Duration current_ = Duration::zero();
};

}  // namespace ergobench::runtime

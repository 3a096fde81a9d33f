// The controller's work queue, with client-go's semantics:
// - a key is queued at most once, however often it is added;
// - a key being processed is never handed to a second worker; added meanwhile, it is
//   queued again when Done is called;
// - AddAfter delays a key, AddRateLimited delays it by the rate limiter.
// TryGet never blocks and is what fake-clock tests use; Get waits for work or shutdown.
#pragma once

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "base/clock.h"
#include "kube/runtime/rate_limiter.h"

namespace ergobench::runtime {

class WorkQueue {
 public:
  WorkQueue(const TimeSource* time, RateLimits limits = {}) : time_(time), limiter_(time, limits) {}

  void Add(const std::string& key);
  void AddAfter(const std::string& key, Duration delay);
  void AddRateLimited(const std::string& key);
  void Forget(const std::string& key) { limiter_.Forget(key); }
  int NumRequeues(const std::string& key) const { return limiter_.NumRequeues(key); }

  // A key that is due, or nothing. The caller must call Done(key) when finished with it.
  std::optional<std::string> TryGet();
  // Waits for a key; nothing once the queue is shut down.
  std::optional<std::string> Get();
  void Done(const std::string& key);

  void ShutDown();
  size_t Len() const;          // keys ready now
  size_t WaitingLen() const;   // keys waiting for their delay

 private:
  void AddLocked(const std::string& key);
  void PromoteDueLocked();

  const TimeSource* time_;
  RateLimiter limiter_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::string> queue_;
  std::set<std::string> dirty_;       // queued, or to be queued when processing ends
  std::set<std::string> processing_;
  std::multimap<Clock::time_point, std::string> waiting_;
  bool shutting_down_ = false;
};

}  // namespace ergobench::runtime

#include "kube/runtime/work_queue.h"

namespace ergobench::runtime {

void WorkQueue::AddLocked(const std::string& key) {
  if (shutting_down_ || dirty_.count(key) > 0) return;
  dirty_.insert(key);
  if (processing_.count(key) > 0) return;  // Done queues it
  queue_.push_back(key);
  changed_.notify_one();
}

void WorkQueue::Add(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  AddLocked(key);
}

void WorkQueue::AddAfter(const std::string& key, Duration delay) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (shutting_down_) return;
  if (delay <= Duration::zero()) {
    AddLocked(key);
    return;
  }
  // One pending delay per key: the earlier wins, as client-go's delaying queue keeps it.
  const Clock::time_point due = time_->Now() + delay;
  for (auto it = waiting_.begin(); it != waiting_.end(); ++it) {
    if (it->second != key) continue;
    if (it->first <= due) return;
    waiting_.erase(it);
    break;
  }
  waiting_.emplace(due, key);
  changed_.notify_all();
}

void WorkQueue::AddRateLimited(const std::string& key) { AddAfter(key, limiter_.When(key)); }

void WorkQueue::PromoteDueLocked() {
  const Clock::time_point now = time_->Now();
  while (!waiting_.empty() && waiting_.begin()->first <= now) {
    const std::string key = waiting_.begin()->second;
    waiting_.erase(waiting_.begin());
    AddLocked(key);
  }
}

std::optional<std::string> WorkQueue::TryGet() {
  std::lock_guard<std::mutex> lock(mutex_);
  PromoteDueLocked();
  if (queue_.empty()) return std::nullopt;
  std::string key = queue_.front();
  queue_.pop_front();
  processing_.insert(key);
  dirty_.erase(key);
  return key;
}

std::optional<std::string> WorkQueue::Get() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    PromoteDueLocked();
    if (!queue_.empty()) {
      std::string key = queue_.front();
      queue_.pop_front();
      processing_.insert(key);
      dirty_.erase(key);
      return key;
    }
    if (shutting_down_) return std::nullopt;
    if (waiting_.empty()) {
      changed_.wait(lock);
    } else {
      // The time source may be fake in tests, so wait in real time for the same span.
      changed_.wait_for(lock, waiting_.begin()->first - time_->Now());
    }
  }
}

void WorkQueue::Done(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  processing_.erase(key);
  if (dirty_.count(key) > 0) {
    queue_.push_back(key);
    changed_.notify_one();
  }
}

void WorkQueue::ShutDown() {
  std::lock_guard<std::mutex> lock(mutex_);
  shutting_down_ = true;
  changed_.notify_all();
}

size_t WorkQueue::Len() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return queue_.size();
}

size_t WorkQueue::WaitingLen() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return waiting_.size();
}

}  // namespace ergobench::runtime

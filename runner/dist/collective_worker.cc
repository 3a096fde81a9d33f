#include "runner/dist/collective_worker.h"

#include <chrono>

namespace ergobench {

CollectiveWorker::CollectiveWorker() : thread_([this] { Loop(); }) {}

CollectiveWorker::~CollectiveWorker() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  queued_.notify_one();
  thread_.join();
}

void CollectiveWorker::Launch(std::function<Status()> collective) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(collective));
  }
  queued_.notify_one();
}

Status CollectiveWorker::WaitAll() {
  std::unique_lock<std::mutex> lock(mutex_);
  drained_.wait(lock, [this] { return queue_.empty() && !running_one_; });
  return error_;
}

double CollectiveWorker::TakeBusySeconds() {
  std::lock_guard<std::mutex> lock(mutex_);
  const double seconds = busy_seconds_;
  busy_seconds_ = 0;
  return seconds;
}

void CollectiveWorker::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    queued_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, with nothing left to run
    std::function<Status()> collective = std::move(queue_.front());
    queue_.pop_front();
    if (!error_.ok()) {
      if (queue_.empty()) drained_.notify_all();
      continue;
    }
    running_one_ = true;
    lock.unlock();
    const auto start = std::chrono::steady_clock::now();
    Status status = collective();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    lock.lock();
    running_one_ = false;
    busy_seconds_ += seconds;
    if (error_.ok()) error_ = std::move(status);
    if (queue_.empty()) drained_.notify_all();
  }
}

}  // namespace ergobench

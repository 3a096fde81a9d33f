#include "kube/runtime/event_recorder.h"

#include "kube/runtime/log.h"

namespace ergobench::runtime {

EventRecorder::EventRecorder(kube::KubeClient* client, size_t capacity)
    : client_(client), capacity_(capacity), sender_([this] { Send(); }) {}

EventRecorder::~EventRecorder() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  sender_.join();
}

void EventRecorder::Record(std::string ns, nlohmann::json event) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (queue_.size() >= capacity_) {
      ++dropped_;
      Log(LogLevel::kWarning, "event dropped: the recorder's queue is full",
          {{"reason", event.value("reason", "")}, {"namespace", ns}});
      return;
    }
    queue_.emplace_back(std::move(ns), std::move(event));
  }
  changed_.notify_all();
}

void EventRecorder::Flush() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return queue_.empty() && sending_ == 0; });
}

uint64_t EventRecorder::dropped() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return dropped_;
}

void EventRecorder::Send() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    changed_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (stopping_) {
      // By now the client is shut down: what is left cannot be sent.
      if (!queue_.empty()) {
        Log(LogLevel::kWarning, "events not recorded: the operator is stopping",
            {{"count", std::to_string(queue_.size())}});
      }
      return;
    }
    auto [ns, event] = std::move(queue_.front());
    queue_.pop_front();
    ++sending_;
    lock.unlock();
    auto created = client_->Create(kube::Events(), ns, event);
    if (!created.ok()) {
      Log(LogLevel::kWarning, "cannot record event",
          {{"reason", event.value("reason", "")}, {"namespace", ns}, {"error", created.status().ToString()}});
    }
    lock.lock();
    --sending_;
    changed_.notify_all();
  }
}

}  // namespace ergobench::runtime

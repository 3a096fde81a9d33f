// Kubernetes Events, recorded off the reconcile path as client-go's recorder does: Record()
// queues and returns at once, and one thread of the recorder's own creates them in order. A
// reconcile that records an event then costs no round trip, and a slow Events API slows no
// reconcile. Events are a courtesy: when the queue is full one is dropped, and a failed
// create is logged, never retried.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include <nlohmann/json.hpp>

#include "kube/client/client.h"

namespace ergobench::runtime {

class EventRecorder {
 public:
  explicit EventRecorder(kube::KubeClient* client, size_t capacity = 1000);
  // Stops after the event being sent; the rest are dropped (the operator's client is shut
  // down by then) and counted in the log.
  ~EventRecorder();
  EventRecorder(const EventRecorder&) = delete;
  EventRecorder& operator=(const EventRecorder&) = delete;

  void Record(std::string ns, nlohmann::json event);
  // Waits until every event recorded so far has been sent (or has failed).
  void Flush();
  uint64_t dropped() const;

 private:
  void Send();

  kube::KubeClient* client_;
  const size_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::pair<std::string, nlohmann::json>> queue_;
  size_t sending_ = 0;
  uint64_t dropped_ = 0;
  bool stopping_ = false;
  std::thread sender_;
};

}  // namespace ergobench::runtime

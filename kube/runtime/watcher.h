// The watcher: keeps a consumer's view of one kind in step with the API server, as kube-rs's
// watcher does, as an explicit state machine:
//
//   kEmpty ──list ok──▶ kListed(rv) ──watch from rv──▶ events… ──stream ends──▶ kListed(rv')
//     ▲                                                    │
//     └──────────── 410 Gone (rv expired) ◀────────────────┘
//
// A list emits kRestarted with every object (the consumer replaces its state); watch events
// emit kApplied or kDeleted; bookmarks only move the resourceVersion. Errors leave the state
// as it is and make Run back off (800 ms doubling to 30 s); a 410 drops back to kEmpty for a
// fresh list. Step is one transition, so tests drive the machine on scripted streams.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "kube/client/client.h"
#include "kube/runtime/backoff.h"

namespace ergobench::runtime {

// Where the watcher lists and watches: the KubeClient for one resource and selector, or a
// script in tests.
class ListWatch {
 public:
  virtual ~ListWatch() = default;
  virtual StatusOr<kube::ObjectList> List() = 0;
  virtual Status Watch(const std::string& resource_version,
                       const std::function<Status(kube::WatchEvent&& event)>& on_event) = 0;
};

class ClientListWatch final : public ListWatch {
 public:
  ClientListWatch(kube::KubeClient* client, kube::ApiResource resource, std::string ns, std::string label_selector = "",
                  int watch_timeout_seconds = 290)
      : client_(client), resource_(std::move(resource)), ns_(std::move(ns)), label_selector_(std::move(label_selector)),
        watch_timeout_seconds_(watch_timeout_seconds) {}
  // Only the objects whose fields match, e.g. "spec.nodeName=n1" (the node energy agent).
  void SetFieldSelector(std::string selector) { field_selector_ = std::move(selector); }
  StatusOr<kube::ObjectList> List() override;
  Status Watch(const std::string& resource_version,
               const std::function<Status(kube::WatchEvent&& event)>& on_event) override;

 private:
  kube::KubeClient* client_;
  kube::ApiResource resource_;
  std::string ns_;
  std::string label_selector_;
  std::string field_selector_;
  int watch_timeout_seconds_;
};

struct WatcherEvent {
  enum Kind { kRestarted, kApplied, kDeleted };
  Kind kind;
  std::vector<nlohmann::json> objects;  // all for kRestarted, one otherwise
};

// kube-rs's default watcher backoff: 800 ms, doubling to 30 s, each delay jittered by up to half.
inline Backoff DefaultWatchBackoff() {
  return Backoff(std::chrono::milliseconds(800), std::chrono::seconds(30), 0.5, ThreadLocalUniform01);
}

class Watcher {
 public:
  enum class State { kEmpty, kListed };

  Watcher(ListWatch* source, std::function<void(WatcherEvent&& event)> emit) : source_(source), emit_(std::move(emit)) {}

  // One transition: a list in kEmpty, one watch stream in kListed.
  Status Step();

  // A watch stream that ends OK sooner than this without an event is a failure (backed off).
  static constexpr Duration kShortWatch = std::chrono::seconds(1);

  // How long 401/403 answers are retried once the watch has worked.
  static constexpr Duration kFatalGrace = std::chrono::seconds(60);

  // Steps until `stop`, backing off after errors. Fatal errors (401/403) are returned: the
  // operator cannot mend its credentials. Only after kFatalGrace when the watch had
  // worked before, since an API server that just restarted may deny requests briefly.
  Status Run(const std::atomic<bool>& stop, Backoff backoff,
             const std::function<void(Duration)>& sleep, const std::function<void(const Status&)>& on_error);

  State state() const { return state_; }
  const std::string& resource_version() const { return resource_version_; }

 private:
  Status OnEvent(kube::WatchEvent&& event);

  ListWatch* source_;
  std::function<void(WatcherEvent&& event)> emit_;
  State state_ = State::kEmpty;
  std::string resource_version_;
};

}  // namespace ergobench::runtime

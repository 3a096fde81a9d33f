#include "kube/runtime/watcher.h"

#include "kube/client/api_error.h"

namespace ergobench::runtime {

StatusOr<kube::ObjectList> ClientListWatch::List() {
  kube::ListOptions options;
  options.label_selector = label_selector_;
  options.field_selector = field_selector_;
  return client_->List(resource_, ns_, options);
}

Status ClientListWatch::Watch(const std::string& resource_version,
                              const std::function<Status(kube::WatchEvent&& event)>& on_event) {
  kube::ListOptions options;
  options.label_selector = label_selector_;
  options.field_selector = field_selector_;
  options.resource_version = resource_version;
  options.allow_bookmarks = true;
  options.timeout_seconds = watch_timeout_seconds_;
  return client_->Watch(resource_, ns_, options, on_event);
}

Status Watcher::OnEvent(kube::WatchEvent&& event) {
  using kube::WatchEventType;
  if (event.type == WatchEventType::kError) return kube::ApiErrorFromObject(event.object);
  const std::string rv = kube::EventResourceVersion(event);
  if (!rv.empty()) resource_version_ = rv;
  switch (event.type) {
    case WatchEventType::kAdded:
    case WatchEventType::kModified: emit_({WatcherEvent::kApplied, {std::move(event.object)}}); break;
    case WatchEventType::kDeleted: emit_({WatcherEvent::kDeleted, {std::move(event.object)}}); break;
    case WatchEventType::kBookmark:
    case WatchEventType::kError: break;
  }
  return Status::Ok();
}

Status Watcher::Step() {
  if (state_ == State::kEmpty) {
    ASSIGN_OR_RETURN(kube::ObjectList list, source_->List());
    resource_version_ = list.resource_version;
    state_ = State::kListed;
    emit_({WatcherEvent::kRestarted, std::move(list.items)});
    return Status::Ok();
  }
  const auto started = std::chrono::steady_clock::now();
  int events = 0;
  Status status = source_->Watch(resource_version_, [this, &events](kube::WatchEvent&& e) {
    ++events;
    return OnEvent(std::move(e));
  });
  if (status.ok() && events == 0 && std::chrono::steady_clock::now() - started < kShortWatch) {
    // client-go's "very short watch": a server or proxy that ends every stream at once would
    // have us reconnect in a hot loop. Count it a failure, so Run backs off.
    return Status::Unavailable("the watch ended at once without an event");
  }
  if (kube::IsGone(status)) {
    // Our resourceVersion left the server's window: what happened meanwhile is lost, so
    // start over from a list.
    state_ = State::kEmpty;
    resource_version_.clear();
  }
  return status;
}

Status Watcher::Run(const std::atomic<bool>& stop, Backoff backoff, const std::function<void(Duration)>& sleep,
                    const std::function<void(const Status&)>& on_error) {
  bool ever_succeeded = false;
  Duration denied_for = Duration::zero();
  while (!stop.load()) {
    Status status = Step();
    if (status.ok()) {
      ever_succeeded = true;
      denied_for = Duration::zero();
      backoff.Reset();
      continue;
    }
    if (stop.load()) break;
    // Denied from the start, the credentials or the RBAC are wrong. Denied after working,
    // it may be an API server whose authorizer is still loading after a restart: retry,
    // but only for a while.
    if (kube::IsFatal(status) && (!ever_succeeded || denied_for >= kFatalGrace)) return status;
    on_error(status);
    // A 410 is routine (the re-list follows at once); everything else waits.
    if (!kube::IsGone(status)) {
      const Duration delay = backoff.Next();
      if (kube::IsFatal(status)) denied_for += delay;
      sleep(delay);
    }
  }
  return Status::Ok();
}

}  // namespace ergobench::runtime

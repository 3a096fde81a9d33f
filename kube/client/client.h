// A Kubernetes API client for the few verbs the operator needs: get, list (all pages),
// create, JSON merge-patch, replace (the /status subresource included), delete, and watch.
// Objects are JSON; errors are typed Status values (api_error.h). Thread-safe as far as the
// transport is; the cpprest one is.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "kube/client/http_transport.h"
#include "kube/client/resource.h"
#include "kube/client/watch_framing.h"

namespace ergobench::kube {

struct ObjectList {
  std::vector<nlohmann::json> items;
  std::string resource_version;  // where a watch continues from
};

enum class Propagation { kBackground, kForeground };

struct DeleteOptions {
  explicit DeleteOptions(std::string only_uid = "", Propagation dependents = Propagation::kBackground)
      : uid(std::move(only_uid)), propagation(dependents) {}

  // Only the object with this UID (unless empty): a newer namesake is left alone and the answer
  // is a Conflict.
  std::string uid;
  // Dependents go in the background, or, in the foreground, before the object: it stays (with a
  // deletionTimestamp) until they are gone.
  Propagation propagation = Propagation::kBackground;
  // 0: the object goes at once, without waiting for its kubelet to confirm; unset: its own.
  std::optional<int64_t> grace_period_seconds;
};

class KubeClient {
 public:
  // `transport` must outlive the client.
  explicit KubeClient(HttpTransport* transport) : transport_(transport) {}

  StatusOr<nlohmann::json> Get(const ApiResource& resource, const std::string& ns, const std::string& name);
  // Follows `continue` tokens until the list is whole.
  StatusOr<ObjectList> List(const ApiResource& resource, const std::string& ns, const ListOptions& options = {});
  StatusOr<nlohmann::json> Create(const ApiResource& resource, const std::string& ns, const nlohmann::json& object);
  StatusOr<nlohmann::json> MergePatch(const ApiResource& resource, const std::string& ns, const std::string& name,
                                      const nlohmann::json& patch, const std::string& subresource = "");
  // PUT: the object's metadata.resourceVersion makes it conditional (409 Conflict when stale).
  StatusOr<nlohmann::json> Replace(const ApiResource& resource, const std::string& ns, const std::string& name,
                                   const nlohmann::json& object, const std::string& subresource = "");
  StatusOr<nlohmann::json> UpdateStatus(const ApiResource& resource, const nlohmann::json& object);
  // A missing object is NotFound. The value is the server's answer: the object marked for
  // deletion, or a Status.
  StatusOr<nlohmann::json> Delete(const ApiResource& resource, const std::string& ns, const std::string& name,
                                  const DeleteOptions& options = DeleteOptions());

  // Streams events to on_event until the server ends the stream (OK), on_event fails, or
  // the transport does. A non-200 answer is its API error (410 Gone included).
  Status Watch(const ApiResource& resource, const std::string& ns, const ListOptions& options,
               const std::function<Status(WatchEvent&& event)>& on_event);

  void Shutdown() { transport_->Shutdown(); }

  // Requests sent so far, by verb (get, list, create, patch, update, delete, watch).
  std::map<std::string, uint64_t> RequestCounts() const;

 private:
  StatusOr<nlohmann::json> Exchange(const std::string& verb, HttpRequest request);
  void Count(const std::string& verb);

  HttpTransport* transport_;
  mutable std::mutex counts_mutex_;
  std::map<std::string, uint64_t> counts_;
};

}  // namespace ergobench::kube

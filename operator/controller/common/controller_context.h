// What every controller's Setup is given, as controller-runtime's SetupWithManager is given the
// Manager: where to add its caches, its queue and its runnables, the client, which namespaces
// to watch, and where Events go.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "kube/client/client.h"
#include "kube/client/resource.h"
#include "kube/runtime/manager.h"
#include "kube/runtime/watcher.h"

namespace ergobench::controller {

using RecordEvent = std::function<void(const std::string& ns, nlohmann::json event)>;

struct ControllerContext {
  runtime::Manager* manager = nullptr;
  kube::KubeClient* client = nullptr;
  const TimeSource* time = nullptr;  // the one clock of every controller
  std::string namespace_name;  // empty: every namespace
  int watch_timeout_seconds = 290;
  RecordEvent record_event;

  // A list-watch of `resource` in the watched namespaces, of the objects with `label_selector`.
  std::unique_ptr<runtime::ClientListWatch> Watch(const kube::ApiResource& resource,
                                                  const std::string& label_selector) const {
    return std::make_unique<runtime::ClientListWatch>(client, resource, namespace_name, label_selector,
                                                      watch_timeout_seconds);
  }
};

}  // namespace ergobench::controller

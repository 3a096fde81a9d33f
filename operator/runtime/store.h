// The reflector's store: the latest copy of every object a watcher has seen, by
// "namespace/name". Readers get copies; the watcher thread applies events. Reconcilers read
// from here rather than from the API server, as controller-runtime's cache does.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "operator/runtime/watcher.h"

namespace ergobench::runtime {

std::string ObjectKey(const nlohmann::json& object);  // "ns/name"

class Store {
 public:
  void Apply(const WatcherEvent& event);
  // Our own write, put in ahead of its watch event: only over the exact version the write
  // was based on (`based_on`; empty: only when the key is absent), so that it never hides a
  // newer version the watch has already delivered.
  void ApplyOwnWrite(const nlohmann::json& object, const std::string& based_on);
  std::optional<nlohmann::json> Get(const std::string& key) const;
  std::vector<nlohmann::json> List(const std::function<bool(const nlohmann::json&)>& filter = nullptr) const;
  size_t Size() const;
  // True once the first list has arrived: before that an absent object proves nothing.
  bool Synced() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, nlohmann::json> objects_;
  bool synced_ = false;
};

}  // namespace ergobench::runtime

// The reflector's store: the latest copy of every object a watcher has seen, by
// "namespace/name". Readers get copies; the watcher thread applies events. Reconcilers read
// from here rather than from the API server, as controller-runtime's cache does.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kube/runtime/watcher.h"

namespace ergobench::runtime {

std::string ObjectKey(const nlohmann::json& object);  // "ns/name"

class Store {
 public:
  using IndexOf = std::function<std::string(const nlohmann::json& object)>;
  // Trims an object before it is cached, or refuses it (false), as client-go's TransformFunc:
  // a cache holds only what its reconcilers read, whoever can set the label it watches by.
  using Transform = std::function<bool(nlohmann::json* object)>;

  // `index_of` files each object under a value (a pod under its Benchmark's key; "" for
  // none), and ByIndex lists one value's objects without looking at the others, as
  // client-go's Indexer does: a reconcile costs its own pods, not every pod in the cluster.
  explicit Store(IndexOf index_of = nullptr, Transform transform = nullptr)
      : index_of_(std::move(index_of)), transform_(std::move(transform)) {}

  // Returns the index values (without an index: the keys) of the objects of `event` that
  // changed the cache: all but those it held already at the same resourceVersion (the watch
  // echoing a write of ours that ApplyOwnWrite put in).
  std::vector<std::string> Apply(WatcherEvent&& event);
  // Our own write, put in ahead of its watch event: only over the exact version the write
  // was based on (`based_on`; empty: only when the key is absent), so that it never hides a
  // newer version the watch has already delivered.
  void ApplyOwnWrite(const nlohmann::json& object, const std::string& based_on);
  std::optional<nlohmann::json> Get(const std::string& key) const;
  std::vector<nlohmann::json> List(const std::function<bool(const nlohmann::json&)>& filter = nullptr) const;
  // Visits every object in place, under the store's lock: for summaries that need no copy.
  void ForEach(const std::function<void(const nlohmann::json&)>& visit) const;
  // Needs `index_of`.
  std::vector<nlohmann::json> ByIndex(const std::string& value) const;
  size_t Size() const;
  // True once the first list has arrived: before that an absent object proves nothing.
  bool Synced() const;

 private:
  // Under mutex_.
  void Put(const std::string& key, nlohmann::json object);
  std::string IndexValue(const std::string& key, const nlohmann::json& object) const;
  bool HoldsVersion(const std::string& key, const nlohmann::json& object) const;
  void Erase(const std::string& key);

  const IndexOf index_of_;
  const Transform transform_;
  mutable std::mutex mutex_;
  std::map<std::string, nlohmann::json> objects_;
  std::map<std::string, std::set<std::string>> index_;  // value → keys
  bool synced_ = false;
};

}  // namespace ergobench::runtime

#include "operator/runtime/store.h"

namespace ergobench::runtime {

std::string ObjectKey(const nlohmann::json& object) {
  const auto& metadata = object.at("metadata");
  return metadata.value("namespace", "") + "/" + metadata.value("name", "");
}

void Store::Apply(const WatcherEvent& event) {
  std::lock_guard<std::mutex> lock(mutex_);
  switch (event.kind) {
    case WatcherEvent::kRestarted:
      objects_.clear();
      for (const auto& object : event.objects) objects_[ObjectKey(object)] = object;
      synced_ = true;
      break;
    case WatcherEvent::kApplied:
      for (const auto& object : event.objects) objects_[ObjectKey(object)] = object;
      break;
    case WatcherEvent::kDeleted:
      for (const auto& object : event.objects) objects_.erase(ObjectKey(object));
      break;
  }
}

void Store::ApplyOwnWrite(const nlohmann::json& object, const std::string& based_on) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string key = ObjectKey(object);
  const auto it = objects_.find(key);
  if (it == objects_.end()) {
    if (based_on.empty()) objects_[key] = object;
    return;
  }
  if (!based_on.empty() && it->second["metadata"].value("resourceVersion", "") == based_on) it->second = object;
}

std::optional<nlohmann::json> Store::Get(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = objects_.find(key);
  if (it == objects_.end()) return std::nullopt;
  return it->second;
}

std::vector<nlohmann::json> Store::List(const std::function<bool(const nlohmann::json&)>& filter) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<nlohmann::json> out;
  for (const auto& [key, object] : objects_) {
    if (!filter || filter(object)) out.push_back(object);
  }
  return out;
}

size_t Store::Size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return objects_.size();
}

bool Store::Synced() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return synced_;
}

}  // namespace ergobench::runtime

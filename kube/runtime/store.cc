#include "kube/runtime/store.h"

#include "base/check.h"

namespace ergobench::runtime {

std::string ObjectKey(const nlohmann::json& object) {
  const auto& metadata = object.at("metadata");
  return metadata.value("namespace", "") + "/" + metadata.value("name", "");
}

std::string Store::IndexValue(const std::string& key, const nlohmann::json& object) const {
  return index_of_ ? index_of_(object) : key;
}

void Store::Put(const std::string& key, nlohmann::json object) {
  Erase(key);
  if (index_of_) index_[index_of_(object)].insert(key);
  objects_[key] = std::move(object);
}

void Store::Erase(const std::string& key) {
  const auto it = objects_.find(key);
  if (it == objects_.end()) return;
  if (index_of_) {
    const auto filed = index_.find(index_of_(it->second));
    filed->second.erase(key);
    if (filed->second.empty()) index_.erase(filed);
  }
  objects_.erase(it);
}

std::vector<std::string> Store::Apply(WatcherEvent&& event) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> changed;
  if (event.kind == WatcherEvent::kRestarted) {
    objects_.clear();
    index_.clear();
    synced_ = true;
  }
  for (auto& object : event.objects) {
    const std::string key = ObjectKey(object);
    if (event.kind != WatcherEvent::kDeleted && transform_ && !transform_(&object)) {
      // Refused: one held before (its owner changed) goes, and its old index value hears of it.
      if (const auto held = objects_.find(key); held != objects_.end()) {
        changed.push_back(IndexValue(key, held->second));
        Erase(key);
      }
      continue;
    }
    if (event.kind != WatcherEvent::kDeleted && HoldsVersion(key, object)) continue;
    changed.push_back(IndexValue(key, object));
    if (event.kind == WatcherEvent::kDeleted) {
      Erase(key);
    } else {
      Put(key, std::move(object));
    }
  }
  return changed;
}

bool Store::HoldsVersion(const std::string& key, const nlohmann::json& object) const {
  const auto held = objects_.find(key);
  const std::string version = object["metadata"].value("resourceVersion", "");
  return held != objects_.end() && !version.empty() && held->second["metadata"].value("resourceVersion", "") == version;
}

void Store::ApplyOwnWrite(const nlohmann::json& written, const std::string& based_on) {
  nlohmann::json object = written;
  if (transform_ && !transform_(&object)) return;
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string key = ObjectKey(object);
  const auto it = objects_.find(key);
  if (it == objects_.end()) {
    if (based_on.empty()) Put(key, std::move(object));
    return;
  }
  if (!based_on.empty() && it->second["metadata"].value("resourceVersion", "") == based_on) Put(key, std::move(object));
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

void Store::ForEach(const std::function<void(const nlohmann::json&)>& visit) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [key, object] : objects_) visit(object);
}

std::vector<nlohmann::json> Store::ByIndex(const std::string& value) const {
  ERGOBENCH_CHECK(index_of_ != nullptr);
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<nlohmann::json> out;
  const auto filed = index_.find(value);
  if (filed == index_.end()) return out;
  for (const std::string& key : filed->second) out.push_back(objects_.at(key));
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

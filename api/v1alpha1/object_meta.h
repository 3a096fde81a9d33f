// What every ergobench resource shares: its metadata, and the conditions of its status.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace ergobench {

struct ObjectMeta {
  std::string name;
  std::string namespace_name;
  std::string uid;
  std::string resource_version;
  int64_t generation = 0;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  // Every other metadata field as the API server sent it (ownerReferences, managedFields,
  // ...), kept so that writing the object back loses nothing.
  nlohmann::json other = nlohmann::json::object();
};

struct Condition {
  std::string type;    // Created | Running | Succeeded | Failed
  std::string status;  // "True" | "False" | "Unknown"
  std::string reason;  // CamelCase: PodFailed, DeadlineExceeded, Invalid, ...
  std::string message;
  std::string last_transition_time;  // RFC 3339
  int64_t observed_generation = 0;
};

}  // namespace ergobench

// Events the controllers record about their objects: what a pure plan asks for, and the core/v1
// Event the recorder posts.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "api/v1alpha1/benchmark.h"  // ObjectMeta

namespace ergobench::controller {

// An event a plan asks for; the reconciler records it about its object.
struct PlannedEvent {
  std::string type;  // Normal | Warning
  std::string reason;
  std::string message;
};

// A core/v1 Event about an ergobench object of `kind`. `type` is Normal or Warning. The API
// server refuses a message over 1 KiB; a longer one is cut between characters.
inline constexpr size_t kMaxEventMessageBytes = 1024;
nlohmann::json BuildObjectEvent(const char* kind, const ObjectMeta& object, const std::string& type,
                                const std::string& reason, const std::string& message, const std::string& timestamp);

}  // namespace ergobench::controller

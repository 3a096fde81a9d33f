// RFC 3339 UTC timestamps ("2026-11-22T03:19:02Z"), the form Kubernetes uses for
// startTime, completionTime and lastTransitionTime, and its microsecond form
// ("2026-11-22T03:19:02.123456Z", a Lease's MicroTime).
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace ergobench {

std::string Rfc3339(std::chrono::system_clock::time_point time);
std::string Rfc3339Micro(std::chrono::system_clock::time_point time);

// Accepts fractional seconds and "Z" or a "+hh:mm" offset; nothing for anything else.
std::optional<std::chrono::system_clock::time_point> ParseRfc3339(const std::string& text);

}  // namespace ergobench

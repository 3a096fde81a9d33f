// RFC 3339 UTC timestamps ("2026-11-22T03:19:02Z"), the form Kubernetes uses for
// startTime, completionTime and lastTransitionTime.
#pragma once

#include <chrono>
#include <string>

namespace ergobench {

std::string Rfc3339(std::chrono::system_clock::time_point time);

}  // namespace ergobench

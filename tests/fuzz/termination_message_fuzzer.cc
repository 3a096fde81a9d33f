// A rank's termination message, which the operator reads from any pod: parse it, and what
// parses must serialize back within the kubelet's 4 KiB and parse again.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "api/v1alpha1/result.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto result = ergobench::ParseRankResult(std::string(reinterpret_cast<const char*>(data), size));
  if (!result.ok()) return 0;
  const std::string again = ergobench::SerializeRankResult(*result);
  if (again.size() > ergobench::kTerminationMessageLimit || !ergobench::ParseRankResult(again).ok()) std::abort();
  return 0;
}

// A Node object as the operator reads it to tell whether the ranks on it are lost: whatever its
// status holds (anyone who can write a node's status can make it say anything), LostNodeOf
// neither throws nor says more than its bound.
#include <cstdint>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "operator/controller/benchmark/worker_pods.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const nlohmann::json node = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (node.is_discarded()) return 0;
  const std::string why = ergobench::controller::LostNodeOf("n", node);
  if (why.size() > 512) std::abort();
  return 0;
}

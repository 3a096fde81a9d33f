// The node energy agent's /energy query (?namespace=<ns>&benchmark=<name>), which anyone on the
// network may send: an answer names two DNS labels, or nothing for an empty query, or is an
// error; never a crash.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "agent/node_energy_agent.h"
#include "base/text_scan.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view query(reinterpret_cast<const char*>(data), size);
  const auto parsed = ergobench::ParseEnergyQuery(query);
  if (!parsed.ok()) return 0;
  if (!parsed->has_value()) {
    if (!query.empty()) std::abort();  // only the empty query asks nothing
    return 0;
  }
  if (!ergobench::IsDnsLabel((*parsed)->namespace_name) || !ergobench::IsDnsLabel((*parsed)->benchmark)) std::abort();
  return 0;
}

// The node energy agent's answer (GET /energy), which a rank reads from whatever answers at its
// node's IP and port: a report that decodes has no negative age or clock, every channel named,
// and encodes to what it decoded from; anything else is an error naming a field, never a crash.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <nlohmann/json.hpp>

#include "api/contract/node_energy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const nlohmann::json json = nlohmann::json::parse(std::string_view(reinterpret_cast<const char*>(data), size), nullptr,
                                                    /*allow_exceptions=*/false);
  if (json.is_discarded()) return 0;
  const auto report = ergobench::DecodeNodeEnergyReport(json);
  if (!report.ok()) {
    if (report.status().message().rfind("node energy report: ", 0) != 0) std::abort();
    return 0;
  }
  if (report->sample_age_ms < 0 || report->sample_monotonic_ns.value_or(0) < 0) std::abort();
  const auto again = ergobench::DecodeNodeEnergyReport(ergobench::EncodeNodeEnergyReport(*report));
  if (!again.ok() || !(*again == *report)) std::abort();
  return 0;
}

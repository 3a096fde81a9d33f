// Any bytes as an MLPerf log (api/contract/mlperf_log_rules.h), as `ergobench mllog check` reads
// a file: findings name lines inside the log, and a log with no record never passes.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "api/contract/mlperf_log_rules.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view log(reinterpret_cast<const char*>(data), size);
  const ergobench::MlperfLogCheck check = ergobench::CheckMlperfTrainingLog(log);
  const int64_t lines = static_cast<int64_t>(std::count(log.begin(), log.end(), '\n')) + 1;
  for (const ergobench::MlperfLogFinding& f : check.findings) {
    if (f.line < 0 || f.line > lines) std::abort();
  }
  if (log.find(":::MLLOG ") == std::string_view::npos && check.Passed()) std::abort();
  return 0;
}

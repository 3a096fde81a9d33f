// Any bytes as an MLPerf log (api/contract/mlperf_log_rules.h), as `ergobench mllog check` and
// `mllog score` read a file: findings name lines inside the log, a log with no record never
// passes, and three runs of the time it reads score that time (api/analysis/mlperf_score.h).
#include <algorithm>
#include <cstdint>
#include <cmath>
#include <cstdlib>
#include <string_view>

#include "api/analysis/mlperf_score.h"
#include "api/contract/mlperf_log_rules.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view log(reinterpret_cast<const char*>(data), size);
  const ergobench::MlperfLogCheck check = ergobench::CheckMlperfLog(log);
  const int64_t lines = static_cast<int64_t>(std::count(log.begin(), log.end(), '\n')) + 1;
  for (const ergobench::MlperfLogFinding& f : check.findings) {
    if (f.line < 0 || f.line > lines) std::abort();
  }
  if (log.find(":::MLLOG ") == std::string_view::npos && check.Passed()) std::abort();
  if (check.run_start_ms && check.run_stop_ms) {
    const double minutes = (*check.run_stop_ms - *check.run_start_ms) / 60000;
    const ergobench::MlperfScore score = ergobench::ScoreMlperfRuns("resnet", {{minutes, {}, {}}, {minutes, {}, {}}, {minutes, {}, {}}});
    if (std::isfinite(minutes) && score.time_to_train_minutes != minutes) std::abort();
  }
  return 0;
}

// Rank 0's /metrics as the operator reads it (progress.h): a pod may serve any bytes. What is
// read is plausible (a share 0..100 %, a time left and counts that are whole and not negative,
// a basis the runner writes), and the column made from it is valid UTF-8 of bounded length.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "api/analysis/progress_estimate.h"
#include "api/v1alpha1/benchmark_display.h"
#include "base/utf8.h"
#include "operator/controller/benchmark/progress.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view exposition(reinterpret_cast<const char*>(data), size);
  const ergobench::controller::RankZeroState state = ergobench::controller::ParseRankZeroState(exposition, "accuracy");
  if (!state.progress) return 0;
  const ergobench::Progress& p = *state.progress;
  if (p.percent && !(*p.percent >= 0 && *p.percent <= 100)) std::abort();
  if (p.seconds_left && *p.seconds_left < 0) std::abort();
  if (p.epoch && *p.epoch < 0) std::abort();
  if (!p.estimated_from.empty() && p.estimated_from != ergobench::kEstimatedFromWork &&
      p.estimated_from != ergobench::kEstimatedFromGoal) {
    std::abort();
  }
  if (p.seconds_left.has_value() != !p.estimated_from.empty()) std::abort();
  ergobench::Benchmark benchmark;
  benchmark.status.phase = "Running";
  benchmark.status.progress = p;
  const std::string column = ergobench::DisplayProgress(benchmark);
  if (column.size() > 160 || ergobench::FirstInvalidUtf8(column) != std::string::npos) std::abort();
  return 0;
}

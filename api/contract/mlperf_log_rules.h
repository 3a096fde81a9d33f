// MLPerf's log rules: Training's ruleset 4.0.0 (mlcommons/logging's compliance checker: common,
// closed_common or open_common, and ResNet's closed and open rules with its SGD and LARS
// optimizer keys), and HPC's 3.0.0 for a log of an HPC benchmark (its common, division and
// CosmoFlow rules; --usage hpc --ruleset 3.0.0 there), applied to a ":::MLLOG" log as that checker applies them: each key's check on
// its lines in order (a submission_* key's on its first), then each key's required count, then
// the division's and the benchmark's rules over the whole log. Our own implementation, so that
// every run's log can be checked here, without Python; tests/api/contract pins it to the rules.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ergobench {

struct MlperfLogFinding {
  int64_t line = 0;      // 1-based, among the log's lines; 0 for the log as a whole
  std::string rules;     // which rule file: "common", "closed_common", "closed_resnet", "closed_resnet_sgd", ...
  std::string key;       // the mllog key it is about ("" for a line that does not parse)
  std::string message;
  bool warning = false;  // the checker warns (a line that does not parse, a repeat of one value) but passes
};

struct MlperfLogCheck {
  std::string ruleset;    // "training 4.0.0", or "hpc 3.0.0" for a log of an HPC benchmark
  std::string division;   // as the log said
  std::string benchmark;  // submission_benchmark
  std::vector<MlperfLogFinding> findings;
  // What MLPerf's result summarizer reads of a run's log: the first run_start and run_stop,
  // run_stop's status ("success" where the run reached its target), the seed, and the epoch_num
  // of the last eval_accuracy (or eval_error) before run_stop, its epochs to converge.
  std::optional<double> run_start_ms;
  std::optional<double> run_stop_ms;
  std::string run_stop_status;
  std::optional<int64_t> seed;
  std::optional<double> last_eval_epoch;
  // No finding but warnings; or none outside `rules` ("closed_common": a task MLPerf does not
  // have passes the rest).
  bool Passed() const;
  bool PassedExcept(const std::string& rules) const;
};

// By the log's submission_benchmark: HPC 3.0.0's rules for one of its benchmarks, else
// Training 4.0.0's.
MlperfLogCheck CheckMlperfLog(std::string_view log);

// The names MLPerf Training 4.0.0 and MLPerf HPC 3.0.0 know, for submission_benchmark.
const std::vector<std::string>& MlperfTrainingBenchmarks();
const std::vector<std::string>& MlperfHpcBenchmarks();

}  // namespace ergobench

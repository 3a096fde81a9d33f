// ProgressWriter: where a rank says how far it is. Each report gets the run's estimate of the
// share done and the time left (api/analysis/progress_estimate.h), which goes to the rank's
// ergobench_progress_* metrics and, with a path, as one JSON line per write(2) to the file that
// `ergobench run` follows.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "api/analysis/progress_estimate.h"
#include "api/contract/progress_event.h"

namespace ergobench {

class RunnerMetrics;

class ProgressWriter {
 public:
  // `max_epochs`: spec.maxEpochs, the most epochs a run may take; `metrics` may be null.
  ProgressWriter(std::string path, int rank, std::optional<int64_t> max_epochs = std::nullopt,
                 RunnerMetrics* metrics = nullptr);
  ~ProgressWriter();
  ProgressWriter(const ProgressWriter&) = delete;
  ProgressWriter& operator=(const ProgressWriter&) = delete;

  // A task whose run ends when an evaluation reaches a target says so before its first report:
  // the estimate then follows the goal metric's trend too.
  void SetGoal(GoalTrend goal) { estimator_ = ProgressEstimator(goal); }

  // Fills rank, elapsed time and the estimate, then appends. Write errors are ignored: progress
  // is a courtesy and must never fail a run.
  void Report(ProgressEvent event);
  void ReportStage(const std::string& stage);

 private:
  int fd_ = -1;
  int rank_;
  std::optional<int64_t> max_epochs_;
  RunnerMetrics* metrics_;
  ProgressEstimator estimator_{std::nullopt};
  std::chrono::steady_clock::time_point start_;
};

}  // namespace ergobench

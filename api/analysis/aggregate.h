// Folds the per-rank results of one run into the Benchmark's outcome: its phase, a reason
// and message for conditions, and status.results. `ergobench run` and the operator both
// call this, so a local run and a cluster run report the same figures.
#pragma once

#include <string>
#include <vector>

#include "api/v1alpha1/benchmark_phase.h"
#include "api/v1alpha1/result.h"

namespace ergobench {


struct RunOutcome {
  std::string phase;   // kPhaseSucceeded | kPhaseFailed
  std::string reason;  // Succeeded | RankFailed | Cancelled | ResultMissing
  std::string message;
  BenchmarkResults results;
};

// `ranks` holds the results that were read, in any order. A rank of [0, world_size)
// without a result fails the run. The first failed rank in `ranks` order is quoted, so
// callers list ranks by the time they ended: the first failure is usually the cause and
// the later ones its echo ("connection closed by peer"). `epoch_samples`, the task's
// reference epoch (TaskDef::reference_epoch_samples), gives energy per epoch when non-zero.
RunOutcome AggregateRankResults(const std::vector<RankResult>& ranks, int64_t world_size, int64_t epoch_samples = 0);

}  // namespace ergobench

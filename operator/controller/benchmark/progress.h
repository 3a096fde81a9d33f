// Progress of a running Benchmark, read from rank 0's Prometheus metrics: the epoch, the
// steps taken (the step-duration histogram's count) and the last evaluation's value; and,
// once its run has ended, whether rank 0 offers its output files.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "api/contract/artifact_bundle.h"
#include "api/v1alpha1/benchmark.h"
#include "base/status.h"

namespace ergobench::controller {

// The first sample of `name` in a Prometheus text exposition, whatever its labels.
std::optional<double> FindSample(std::string_view exposition, std::string_view name);

// Nothing when the exposition has no epoch yet (the rank is still initialising).
std::optional<Progress> ParseProgress(std::string_view exposition, const std::string& goal_metric);

// Rank 0's step time and the part of it spent waiting in collectives, each summed since it
// started (ergobench_phase_seconds_total, by the one definition of api/analysis/training_phases.h).
struct StepTimeTotals {
  double step_seconds = 0;
  double communication_seconds = 0;
};

// The communication ratio of the steps between two reads of the totals; nothing when no step
// time passed between them, or when they cannot be of one process.
std::optional<double> RecentCommunicationRatio(const StepTimeTotals& before, const StepTimeTotals& after);

// What rank 0's /metrics says: how far it is, its step time so far (nothing for a task that
// times no phases, as 0a), and whether its run has ended and its output files are on offer
// (ArtifactBundle).
struct RankZeroState {
  std::optional<Progress> progress;
  bool artifacts_offered = false;
  std::optional<StepTimeTotals> totals{};
};
RankZeroState ParseRankZeroState(std::string_view exposition, const std::string& goal_metric);

// How the operator talks to rank 0 on its metrics port: over HTTP, or a script in tests.
class RankZeroClient {
 public:
  virtual ~RankZeroClient() = default;
  // Nothing when the rank does not answer.
  virtual std::optional<RankZeroState> Read(const std::string& pod_ip, int port, const std::string& goal_metric) = 0;
  // Rank 0's files, with the token of the Benchmark of uid `benchmark_uid` (artifact_token.h).
  virtual StatusOr<ArtifactBundle> FetchArtifacts(const std::string& pod_ip, int port,
                                                  const std::string& benchmark_uid) = 0;
  // Lets rank 0 exit: the operator holds its files.
  virtual Status ReleaseArtifacts(const std::string& pod_ip, int port, const std::string& benchmark_uid) = 0;
};

}  // namespace ergobench::controller

// MLPerf HPC's weak-scaling score ("throughput", hpc_training_rules): M model instances train at
// once, each its own gang with its own seed, and the score is the models trained per minute,
// M' / TTTa, where TTTa spans the first instance's run_start to the last one's run_stop (in
// minutes, initialisation excluded) over the M' instances counted. Every counted instance must
// have converged; the rules let a submitter prune instances, and here exactly those that did
// not converge are pruned, each named. mlcommons/logging's result summarizer computes the same
// (_compute_weak_score_standalone). Pure: recorded starts and stops pin every number in tests.
#pragma once

#include <string>
#include <vector>

#include "api/v1alpha1/sweep.h"

namespace ergobench {

// A score for each point whose instances `points` (a sweep's status points) hold, in the order
// of their first instance; none without instances. `benchmark` is MLPerf's name of the task
// (mlperf_benchmarks.h): it says how many instances a complete score takes. A point scores
// once all its instances have ended.
std::vector<WeakScalingScore> ScoreInstances(const std::string& benchmark, const std::vector<SweepPointStatus>& points);

}  // namespace ergobench

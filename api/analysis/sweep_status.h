// A sweep's status from its points' Benchmarks: per point the phase and the headline figures'
// statistics (its repeats', or its one value), the speedup and scaling efficiency over its
// series' point of fewest workers, and the counts, progress and best point that
// `kubectl get benchmarksweeps` shows. Pure, so recorded results pin every number in tests;
// the operator and `ergobench run` both build a sweep's status with it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "api/v1alpha1/benchmark.h"
#include "api/v1alpha1/sweep.h"

namespace ergobench {

// `children` by point name. A point without one has ended before if `recorded` (the sweep's
// status) says so for the same spec (its child was deleted: by hand, or its
// ttlSecondsAfterFinished), else it has not been created. Points come in index order. A series
// is the points of one system, backend and hyperparameters.
std::vector<SweepPointStatus> AggregatePoints(const std::vector<SweepPoint>& points,
                                              const std::map<std::string, Benchmark>& children,
                                              const std::vector<SweepPointStatus>& recorded = {});

// Fills total, succeeded, failed, running, progress ("ended/total") and best from `points`,
// and with spec.instances the weak-scaling score of each point (weak_scaling.h).
// The best point is the succeeded one with the shortest time to accuracy, else the highest
// samples/s, tokens/s or peak bus bandwidth, the first figure any succeeded point has.
void TallyPoints(std::vector<SweepPointStatus> points, const BenchmarkSweepSpec& spec, BenchmarkSweepStatus* status);

}  // namespace ergobench

// Every label the controllers put on the objects they make, in one place: what the watches
// select by, what the Services select, and what ties a child to its owner.
#pragma once

#include "api/v1alpha1/benchmark.h"
#include "api/v1alpha1/sweep.h"

namespace ergobench::controller {

// A Benchmark's children: the selector of the pod watch and of the Service.
using ::ergobench::kBenchmarkLabel;
inline constexpr char kRankLabel[] = "ergobench.io/rank";
inline constexpr char kAttemptLabel[] = "ergobench.io/attempt";
inline constexpr char kGenerationLabel[] = "ergobench.io/generation";
// Of spec.repeats, on the pods of repeats after the first (absent reads as 0).
inline constexpr char kRepeatLabel[] = "ergobench.io/repeat";
// rank / spec.scheduling.ranksPerNode: the ranks that share a node.
inline constexpr char kNodeGroupLabel[] = "ergobench.io/node-group";
// An MPI Benchmark's launcher pod has this role; its workers have none (they have kRankLabel).
inline constexpr char kRoleLabel[] = "ergobench.io/role";
inline constexpr char kLauncherRole[] = "launcher";

// A sweep's child Benchmarks.
using ::ergobench::kSweepLabel;

// A Dataset's staging Job and claim.
inline constexpr char kDatasetLabel[] = "ergobench.io/dataset";

}  // namespace ergobench::controller

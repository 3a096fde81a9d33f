// The BenchmarkSweep controller's decision as a pure function, as plan.h is the Benchmark's:
// given a valid sweep's points and the child Benchmarks there are, which children to create or
// delete and what the status becomes.
//
// The points run in the sweep's order, at most spec.concurrency at once (default 1, so that
// points do not compete for nodes and disturb each other's figures). A failed point does not
// stop the others unless spec.failurePolicy is Stop. The sweep is Succeeded when every point
// succeeded, Failed when all have ended and one failed, or when it stopped on a failure.
//
// An edit of a running or finished sweep re-plans it: a point whose Benchmark spec is the same
// keeps its child and results; a child whose spec the sweep no longer renders (its digest
// annotation differs), or whose point is gone, is deleted, and its point runs again.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/v1alpha1/sweep.h"
#include "operator/controller/common/events.h"

namespace ergobench::controller {

// What the plan needs of a Benchmark that carries the sweep's label.
struct SweepChild {
  std::string controller_uid;  // its controller ownerReference's; a namesake's is not the sweep's
  std::string spec_digest;     // kSweepPointSpecAnnotation
  bool deleting = false;
  Benchmark benchmark;  // name, uid and status
};
SweepChild ReadSweepChild(const nlohmann::json& object);

struct SweepPlan {
  std::vector<nlohmann::json> create;  // child Benchmarks, in run order
  std::vector<std::pair<std::string, std::string>> remove;  // children to delete: name, uid
  BenchmarkSweepStatus status;
  std::vector<PlannedEvent> events;
};

SweepPlan PlanSweep(const BenchmarkSweep& sweep, const std::vector<SweepPoint>& points,
                    const std::vector<SweepChild>& children, const std::string& now);

// The status of a sweep its spec makes invalid: Failed, with reason Invalid and every problem.
BenchmarkSweepStatus InvalidSweepStatus(const BenchmarkSweep& sweep, const std::string& message, const std::string& now);

// The child Benchmark of `point`: the point's spec, labels naming the sweep and the point, the
// spec's digest, and the sweep as its controlling owner (deleting the sweep deletes it).
nlohmann::json BuildSweepChild(const BenchmarkSweep& sweep, const SweepPoint& point);

}  // namespace ergobench::controller

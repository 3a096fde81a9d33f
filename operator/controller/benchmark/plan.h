// The decision at the heart of the reconciler, as a pure function: given a defaulted, valid
// Benchmark, its worker pods and the time, which pods to create or delete, what the status
// becomes, which Events to record, and when to look again. The reconciler only carries the
// plan out, so every transition is tested without an API server.
//
// Phases: Pending (pods created, not all running) → Running (all k running) → Succeeded |
// Failed. A gang's peers are created first, rank 0 once they all have a node; the Scheduled
// condition says where they went or, in the scheduler's words, why some cannot go anywhere.
// A failed rank restarts the whole gang while status.restarts < backoffLimit;
// activeDeadlineSeconds counts from startTime; cleanPodPolicy picks the pods removed at the
// end; ttlSecondsAfterFinished deletes the Benchmark itself.
//
// A backend with a launcher (backend_plugin.h: MPI's) adds a launcher pod to the gang, created
// once every worker has a node. It bounds the start as rank 0 does for gloo, and its failure
// fails the gang like a rank's; the workers' results decide success as for gloo.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "api/v1alpha1/benchmark.h"
#include "operator/controller/benchmark/worker_pods.h"
#include "operator/controller/common/events.h"

namespace ergobench::controller {

struct ReconcilePlan {
  std::vector<int64_t> create_ranks;     // pods to create, for attempt status.restarts
  bool create_launcher = false;          // an MPI run's launcher pod, once every worker is placed
  std::vector<std::string> delete_pods;  // and ended pods already being deleted, to go at once
  bool create_service_and_config = false;
  bool delete_benchmark = false;         // ttlSecondsAfterFinished has passed
  BenchmarkStatus status;                // the status to write (unchanged: no write)
  std::vector<PlannedEvent> events;
  std::optional<std::chrono::seconds> requeue_after;
};

ReconcilePlan PlanReconcile(const Benchmark& benchmark, const std::vector<WorkerPod>& pods,
                            std::chrono::system_clock::time_point now);

// `status` ended: phase Failed, condition Failed with `reason` (and Running false, if it was set).
BenchmarkStatus FailedStatus(const Benchmark& benchmark, BenchmarkStatus status, const std::string& reason,
                             const std::string& message, const std::string& now);


}  // namespace ergobench::controller

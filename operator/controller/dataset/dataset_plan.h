// The Dataset controller's decision as a pure function, as plan.h is the Benchmark's: given a
// valid Dataset, its staging Job and that Job's ended pods, what to create or delete and what
// the status becomes.
//
// Phases: an existing claim is Ready at once. A url is Staging (claim and Job created) → Ready
// when the Job completes (the Job is then deleted, the data stays), or Failed when a pod ends
// with an error no retry mends (ergobench-stage exits 2: a checksum mismatch, an unsafe archive)
// or the Job gives up after its tries. An edit of the spec stages the new generation from the
// start; the claim is kept.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/v1alpha1/dataset.h"
#include "operator/controller/common/events.h"

namespace ergobench::controller {

inline constexpr char kConditionReady[] = "Ready";

// What the plan needs of the staging Job.
struct StagingJob {
  std::string uid;
  int64_t generation = -1;  // the Dataset generation it stages (label)
  bool complete = false;
  bool failed = false;
  std::string failure;  // the Job's Failed condition's message
};
StagingJob ReadStagingJob(const nlohmann::json& job);

// A staging pod with at least one ended try. The kubelet restarts a failed try in the same
// pod (restartPolicy OnFailure, after 10 s, then longer), so a pod holds several tries.
struct StagingPod {
  int64_t generation = -1;
  bool succeeded = false;
  int64_t failed_tries = 0;
  // The latest try to end (state.terminated, or lastState.terminated while it waits to restart).
  std::optional<int> exit_code;
  std::string message;  // its termination message: ergobench-stage's result or error
  std::string finished_at;
};
// A pod whose first try still runs gives nothing.
std::optional<StagingPod> ReadStagingPod(const nlohmann::json& pod);

struct DatasetPlan {
  bool create_claim = false;
  bool create_job = false;
  std::string delete_job_uid;  // non-empty: delete the Job with this UID (and its pods)
  DatasetStatus status;
  std::vector<PlannedEvent> events;
};

DatasetPlan PlanDataset(const Dataset& dataset, const std::optional<StagingJob>& job,
                        const std::vector<StagingPod>& pods, const std::string& now);

// The status of a Dataset its spec makes invalid: Failed, Ready False with reason Invalid.
DatasetStatus InvalidDatasetStatus(const Dataset& dataset, const std::string& message, const std::string& now);

}  // namespace ergobench::controller

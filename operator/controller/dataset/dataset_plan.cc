#include "operator/controller/dataset/dataset_plan.h"

#include <algorithm>
#include <cmath>

#include "api/v1alpha1/quantity.h"
#include "operator/controller/common/conditions.h"
#include "operator/controller/dataset/dataset_builders.h"

namespace ergobench::controller {
namespace {

using nlohmann::json;

// A staging Job's time past this (a week) is not a time but a broken clock or message.
constexpr double kMaxStagingSeconds = 7 * 24 * 3600;

int64_t GenerationLabel(const json& object) {
  const std::string value = object["metadata"].value("labels", json::object()).value(kGenerationLabel, "");
  try {
    return value.empty() ? -1 : std::stoll(value);
  } catch (const std::exception&) {
    return -1;
  }
}

DatasetStatus WithPhase(const Dataset& d, DatasetStatus status, const std::string& phase, bool ready,
                        const std::string& reason, const std::string& message, const std::string& now) {
  status.phase = phase;
  status.observed_generation = d.metadata.generation;
  SetCondition(&status.conditions, kConditionReady, ready, reason, message, d.metadata.generation, now);
  return status;
}

// ergobench-stage's result: {"path": ..., "bytes": ..., "files": ..., "seconds": ...}. A
// figure that is not what it should be is left out, not trusted.
void ReadStagedResult(const std::string& message, DatasetStatus* status) {
  const json result = json::parse(message, nullptr, false);
  if (!result.is_object()) return;
  if (result.contains("bytes") && result["bytes"].is_number_integer() && result["bytes"].get<int64_t>() >= 0) {
    status->bytes = result["bytes"].get<int64_t>();
    status->size = FormatByteQuantity(*status->bytes);
  }
  if (result.contains("files") && result["files"].is_number_integer()) status->files = result["files"].get<int64_t>();
  if (result.contains("seconds") && result["seconds"].is_number()) {
    const double seconds = result["seconds"].get<double>();
    if (!std::isfinite(seconds) || seconds < 0 || seconds > kMaxStagingSeconds) return;
    status->staging_seconds = seconds;
    if (status->bytes && seconds > 0) status->staging_bytes_per_second = static_cast<double>(*status->bytes) / seconds;
  }
}

}  // namespace

StagingJob ReadStagingJob(const json& job) {
  StagingJob out;
  out.uid = job["metadata"].value("uid", "");
  out.generation = GenerationLabel(job);
  for (const json& c : job.value("status", json::object()).value("conditions", json::array())) {
    if (c.value("status", "") != "True") continue;
    if (c.value("type", "") == "Complete") out.complete = true;
    if (c.value("type", "") == "Failed") {
      out.failed = true;
      out.failure = c.value("message", c.value("reason", ""));
    }
  }
  return out;
}

std::optional<StagingPod> ReadStagingPod(const json& pod) {
  const json status = pod.value("status", json::object());
  StagingPod out;
  out.generation = GenerationLabel(pod);
  out.succeeded = status.value("phase", "") == "Succeeded";
  bool any_ended = false;
  for (const json& s : status.value("containerStatuses", json::array())) {
    json terminated = s.value("state", json::object()).value("terminated", json::object());
    const bool ended_now = !terminated.empty();
    if (!ended_now) terminated = s.value("lastState", json::object()).value("terminated", json::object());
    if (terminated.empty()) continue;
    any_ended = true;
    const json& code = terminated.contains("exitCode") ? terminated["exitCode"] : json();
    if (code.is_number_integer()) out.exit_code = code.get<int>();
    out.message = terminated.value("message", "");
    out.finished_at = terminated.value("finishedAt", "");
    const json& restarts = s.contains("restartCount") ? s["restartCount"] : json();
    out.failed_tries += restarts.is_number_integer() ? restarts.get<int64_t>() : 0;
    if (ended_now && out.exit_code != 0) ++out.failed_tries;
  }
  if (!any_ended) return std::nullopt;
  return out;
}

DatasetStatus InvalidDatasetStatus(const Dataset& dataset, const std::string& message, const std::string& now) {
  return WithPhase(dataset, dataset.status, kDatasetFailed, false, "Invalid", message, now);
}

DatasetPlan PlanDataset(const Dataset& d, const std::optional<StagingJob>& job, const std::vector<StagingPod>& pods,
                        const std::string& now) {
  DatasetPlan plan;
  plan.status = d.status;
  const int64_t generation = d.metadata.generation;
  const DatasetSource& source = d.spec.source;
  if (source.url.empty()) {  // an existing claim: nothing to stage
    plan.status = WithPhase(d, d.status, kDatasetReady, true, "ExistingClaim",
                            "the data is read from claim " + source.claim_name, now);
    plan.status.claim_name = source.claim_name;
    plan.status.path = source.claim_path;
    return plan;
  }
  const bool settled = d.status.observed_generation == generation &&
                       (d.status.phase == kDatasetReady || d.status.phase == kDatasetFailed);
  if (settled || (job && job->generation != generation)) {
    // Done with this generation, or the Job stages an older spec: it goes (its pods with it).
    if (job) plan.delete_job_uid = job->uid;
    if (settled) return plan;
  }
  plan.create_claim = true;  // idempotent: AlreadyExists of our own claim is success
  plan.status.claim_name = DatasetClaimName(d);
  plan.status.path = StagedDataPath(source);
  std::vector<StagingPod> ended;
  std::copy_if(pods.begin(), pods.end(), std::back_inserter(ended),
               [&](const StagingPod& p) { return p.generation == generation; });
  std::sort(ended.begin(), ended.end(), [](const auto& a, const auto& b) { return a.finished_at < b.finished_at; });
  const auto permanent = std::find_if(ended.begin(), ended.end(), [](const StagingPod& p) {
    return !p.succeeded && p.exit_code == kStagingExitPermanent;
  });
  const bool current = job && job->generation == generation;
  if (permanent != ended.end() || (current && job->failed)) {
    const std::string why = permanent != ended.end() ? permanent->message
                            : !ended.empty()         ? ended.back().message + " (" + job->failure + ")"
                                                     : job->failure;
    plan.status = WithPhase(d, plan.status, kDatasetFailed, false, "StagingFailed", why, now);
    if (current) plan.delete_job_uid = job->uid;
    plan.events.push_back({"Warning", "StagingFailed", why});
    return plan;
  }
  if (current && job->complete) {
    const auto succeeded = std::find_if(ended.begin(), ended.end(), [](const StagingPod& p) { return p.succeeded; });
    if (succeeded != ended.end()) ReadStagedResult(succeeded->message, &plan.status);
    const std::string staged = source.url + " staged into claim " + plan.status.claim_name + " at " + plan.status.path;
    plan.status = WithPhase(d, plan.status, kDatasetReady, true, "Staged", staged, now);
    plan.status.staged_time = now;
    plan.delete_job_uid = job->uid;
    plan.events.push_back({"Normal", "Staged", staged});
    return plan;
  }
  plan.create_job = !job;
  std::string message = "fetching " + source.url + " into claim " + plan.status.claim_name;
  int64_t failed_tries = 0;
  for (const StagingPod& p : ended) failed_tries += p.failed_tries;
  if (failed_tries > 0) {
    message += "; try " + std::to_string(failed_tries + 1) + ", the last ended: " + ended.back().message;
  }
  plan.status = WithPhase(d, plan.status, kDatasetStaging, false, "Staging", message, now);
  return plan;
}

}  // namespace ergobench::controller

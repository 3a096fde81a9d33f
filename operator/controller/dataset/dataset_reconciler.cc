#include "operator/controller/dataset/dataset_reconciler.h"

#include "api/v1alpha1/dataset_codec.h"
#include "api/v1alpha1/dataset_validation.h"
#include "base/rfc3339.h"
#include "base/utf8.h"
#include "kube/client/api_error.h"
#include "operator/controller/common/events.h"
#include "operator/controller/common/ownership.h"
#include "operator/controller/dataset/dataset_builders.h"
#include "operator/controller/dataset/dataset_plan.h"

namespace ergobench::controller {
using nlohmann::json;

std::string StagingOwnerKey(const json& object) {
  return LabelOwnerKey(object, kDatasetLabel);
}

Status DatasetReconciler::WriteStatus(const json& object, const json& status) {
  json updated = object;
  updated["status"] = status;
  // Not put into the cache ahead of its watch event (as the Benchmark reconciler does): that
  // event is what routes the change to the Benchmarks waiting for this Dataset; put in first,
  // the echo would change nothing and they would wait for good (found on the real cluster).
  return deps_.client->UpdateStatus(kube::Datasets(), updated).status().WithContext("update status");
}

runtime::ReconcileResult DatasetReconciler::Reconcile(const std::string& key) {
  const auto none = runtime::Result::Done();
  // 1. Get; one being deleted takes its claim and Job with it (garbage collection).
  const std::optional<json> object = deps_.datasets->Get(key);
  if (!object || object->at("metadata").contains("deletionTimestamp")) return none;
  FieldErrors errors;
  const Dataset dataset = DecodeDataset(*object, &errors);
  const std::string now = Rfc3339(deps_.time->WallNow());

  // 2. Validate: an invalid spec fails until it is edited.
  errors.Append(ValidateDataset(dataset));
  if (!errors.empty()) {
    const DatasetStatus failed = InvalidDatasetStatus(dataset, errors.Joined(), now);
    if (EncodeDatasetStatus(failed) == EncodeDatasetStatus(dataset.status)) return none;
    RETURN_IF_ERROR(WriteStatus(*object, EncodeDatasetStatus(failed)));
    return none;
  }

  // 3. Plan from the staging Job and its ended pods.
  std::optional<StagingJob> job;
  for (const json& j : deps_.jobs->ByIndex(key)) {
    if (ControllerUid(j) == dataset.metadata.uid && !j["metadata"].contains("deletionTimestamp")) job = ReadStagingJob(j);
  }
  std::vector<StagingPod> pods;
  for (const json& p : deps_.staging_pods->ByIndex(key)) {
    if (auto pod = ReadStagingPod(p)) pods.push_back(*pod);
  }
  const DatasetPlan plan = PlanDataset(dataset, job, pods, now);

  // 4. Create what is missing: the claim before the Job whose pod mounts it.
  if (plan.create_claim) RETURN_IF_ERROR(CreateOwned(*deps_.client, kube::PersistentVolumeClaims(), BuildDatasetClaim(dataset), dataset.metadata.uid).status());
  if (plan.create_job) RETURN_IF_ERROR(CreateOwned(*deps_.client, kube::Jobs(), BuildStagingJob(dataset, deps_.image, deps_.allowed_networks), dataset.metadata.uid).status());

  // 5. Status, then the Job's deletion: a Job deleted first would take the pod whose result
  //    the status reads.
  const json status = EncodeDatasetStatus(plan.status);
  if (status != EncodeDatasetStatus(dataset.status)) RETURN_IF_ERROR(WriteStatus(*object, status));
  if (!plan.delete_job_uid.empty()) {
    Status deleted = deps_.client->Delete(kube::Jobs(), dataset.metadata.namespace_name, StagingJobName(dataset),
                                            kube::DeleteOptions(plan.delete_job_uid)).status();
    if (!deleted.ok() && !kube::IsNotFound(deleted) && !kube::IsConflict(deleted)) return deleted;
  }
  if (deps_.record_event) {
    for (const PlannedEvent& e : plan.events) deps_.record_event(dataset.metadata.namespace_name,
                        BuildObjectEvent(kDatasetKind, dataset.metadata, e.type, e.reason, e.message, now));
  }
  return none;
}

}  // namespace ergobench::controller

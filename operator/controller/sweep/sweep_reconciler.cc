#include "operator/controller/sweep/sweep_reconciler.h"

#include "base/rfc3339.h"
#include "kube/client/api_error.h"
#include "operator/controller/common/events.h"
#include "operator/controller/common/ownership.h"
#include "operator/controller/sweep/sweep_plan.h"

namespace ergobench::controller {

using nlohmann::json;

std::string SweepOwnerKey(const json& object) {
  return LabelOwnerKey(object, kSweepLabel);
}

Status SweepReconciler::WriteStatus(const json& object, const json& status) {
  json updated = object;
  updated["status"] = status;
  ASSIGN_OR_RETURN(const json written, deps_.client->UpdateStatus(kube::BenchmarkSweeps(), updated));
  // Ahead of its watch event, so that the next reconcile plans from what was written.
  deps_.sweeps->ApplyOwnWrite(written, object["metadata"].value("resourceVersion", ""));
  return Status::Ok();
}

runtime::ReconcileResult SweepReconciler::Reconcile(const std::string& key) {
  const auto none = runtime::Result::Done();
  // 1. Get; one being deleted takes its children with it (garbage collection).
  const std::optional<json> object = deps_.sweeps->Get(key);
  if (!object || object->at("metadata").contains("deletionTimestamp")) return none;
  FieldErrors errors;
  const BenchmarkSweep sweep = DecodeSweep(*object, &errors);
  const std::string now = Rfc3339(deps_.time->WallNow());
  const auto record = [&](const std::vector<PlannedEvent>& events) {
    if (!deps_.record_event) return;
    for (const PlannedEvent& e : events) {
      deps_.record_event(sweep.metadata.namespace_name,
                         BuildObjectEvent(kSweepKind, sweep.metadata, e.type, e.reason, e.message, now));
    }
  };

  // 2. Expand and validate: an invalid sweep fails until it is edited, its children untouched.
  const std::vector<SweepPoint> points = errors.empty() ? ExpandSweep(sweep, &errors) : std::vector<SweepPoint>{};
  if (!errors.empty()) {
    const BenchmarkSweepStatus failed = InvalidSweepStatus(sweep, errors.Joined(), now);
    if (EncodeSweepStatus(failed) == EncodeSweepStatus(sweep.status)) return none;
    RETURN_IF_ERROR(WriteStatus(*object, EncodeSweepStatus(failed)));
    record({{"Warning", "Invalid", errors.Joined()}});
    return none;
  }

  // 3. Plan from the children.
  std::vector<SweepChild> children;
  for (const json& child : deps_.children->ByIndex(key)) children.push_back(ReadSweepChild(child));
  const SweepPlan plan = PlanSweep(sweep, points, children, now);

  // 4. Delete the stale children, create the next ones.
  for (const auto& [name, uid] : plan.remove) {
    // In the foreground: the child stays until its pods are gone, and holds its point until then,
    // so that the point's next child does not meet its predecessor's pods.
    Status deleted = deps_.client
                         ->Delete(kube::Benchmarks(), sweep.metadata.namespace_name, name,
                                  kube::DeleteOptions(uid, kube::Propagation::kForeground))
                         .status();
    if (!deleted.ok() && !kube::IsNotFound(deleted) && !kube::IsConflict(deleted)) return deleted;
  }
  for (const json& child : plan.create) {
    // Into the cache at once: a reconcile before its watch event must count it against the limit.
    ASSIGN_OR_RETURN(const json created, CreateOwned(*deps_.client, kube::Benchmarks(), child, sweep.metadata.uid));
    deps_.children->ApplyOwnWrite(created, "");
  }

  // 5. Status and events.
  const json status = EncodeSweepStatus(plan.status);
  if (status != EncodeSweepStatus(sweep.status)) RETURN_IF_ERROR(WriteStatus(*object, status));
  record(plan.events);
  return none;
}

}  // namespace ergobench::controller

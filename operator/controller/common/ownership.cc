#include "operator/controller/common/ownership.h"

#include "api/v1alpha1/benchmark_phase.h"
#include "api/v1alpha1/sweep.h"
#include "kube/client/api_error.h"

namespace ergobench::controller {

using nlohmann::json;

std::string LabelOwnerKey(const json& object, const char* label) {
  const auto metadata = object.find("metadata");
  if (metadata == object.end() || !metadata->is_object()) return "";
  const auto labels = metadata->find("labels");
  if (labels == metadata->end() || !labels->is_object()) return "";
  const std::string name = labels->value(label, "");
  return name.empty() ? "" : metadata->value("namespace", "") + "/" + name;
}

std::optional<json> ControllerReference(const json& object) {
  const json references = object.value("metadata", json::object()).value("ownerReferences", json::array());
  if (!references.is_array()) return std::nullopt;
  for (const json& reference : references) {
    if (reference.is_object() && reference.value("controller", false)) return reference;
  }
  return std::nullopt;
}

std::string ControllerUid(const json& object) {
  const std::optional<json> controller = ControllerReference(object);
  return controller ? controller->value("uid", "") : "";
}

StatusOr<json> CreateOwned(kube::KubeClient& client, const kube::ApiResource& resource, const json& desired,
                           const std::string& owner_uid) {
  const std::string ns = desired["metadata"].value("namespace", "");
  const std::string name = desired["metadata"].value("name", "");
  auto created = client.Create(resource, ns, desired);
  if (created.ok()) return created;
  if (!kube::IsAlreadyExists(created.status())) return created.status().WithContext("create " + resource.kind + " " + name);
  ASSIGN_OR_RETURN(json existing, client.Get(resource, ns, name));
  const std::string controller = ControllerUid(existing);
  if (controller != owner_uid) {
    return Status::FailedPrecondition(resource.kind + " " + name + " belongs to " +
                                      (controller.empty() ? "another owner (it has no controller)" : "uid " + controller) +
                                      "; delete it, or name this one differently");
  }
  return existing;
}

bool SweepAwaitsItsEnd(const json& child, const json* sweep) {
  if (sweep == nullptr || !sweep->is_object()) return false;
  const json& metadata = sweep->value("metadata", json::object());
  if (metadata.value("uid", "") != ControllerUid(child) || metadata.contains("deletionTimestamp")) return false;
  const std::string name = child.value("metadata", json::object()).value("name", "");
  FieldErrors ignored;  // what is unreadable of the status records nothing
  for (const SweepPointStatus& point : DecodeSweep(*sweep, &ignored, &ignored).status.points) {
    if (point.benchmark == name && IsFinished(point.phase)) return false;
  }
  return true;
}

}  // namespace ergobench::controller

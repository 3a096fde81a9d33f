#include "operator/controller/benchmark/worker_pods.h"

#include <algorithm>
#include <charconv>

#include "base/json_reader.h"
#include "base/utf8.h"
#include "operator/controller/benchmark/builders.h"
#include "operator/controller/common/ownership.h"

namespace ergobench::controller {
namespace {

using nlohmann::json;

constexpr size_t kMaxNodeWordsBytes = 256;

int64_t IntLabel(const json& labels, const char* key) {
  if (!labels.is_object() || !labels.contains(key) || !labels[key].is_string()) return -1;
  const std::string text = labels[key];
  int64_t value = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() ? value : -1;
}

bool ControlledBy(const json& metadata, const std::string& uid) {
  const auto owners = metadata.find("ownerReferences");
  if (owners == metadata.end() || !owners->is_array()) return false;
  for (const json& owner : *owners) {
    if (owner.is_object() && owner.value("uid", "") == uid && owner.value("controller", false)) return true;
  }
  return false;
}

}  // namespace

std::string WorkerPodOwnerKey(const json& pod) {
  return LabelOwnerKey(pod, kBenchmarkLabel);
}

std::vector<WorkerPod> OwnedWorkerPods(const Benchmark& benchmark, const runtime::Store& pods) {
  std::vector<WorkerPod> owned;
  for (const json& pod : pods.ByIndex(benchmark.metadata.namespace_name + "/" + benchmark.metadata.name)) {
    if (ControlledBy(pod["metadata"], benchmark.metadata.uid)) owned.push_back(ReadWorkerPod(pod));
  }
  return owned;
}

WorkerPod ReadWorkerPod(const json& pod) {
  WorkerPod out;
  const json metadata = pod.value("metadata", json::object());
  const json labels = metadata.value("labels", json::object());
  out.name = metadata.value("name", "");
  out.rank = IntLabel(labels, kRankLabel);
  out.launcher = labels.is_object() && labels.contains(kRoleLabel) && labels[kRoleLabel] == kLauncherRole;
  out.attempt = IntLabel(labels, kAttemptLabel);
  out.generation = IntLabel(labels, kGenerationLabel);
  const bool repeated = labels.is_object() && labels.contains(kRepeatLabel);
  out.repeat = repeated ? IntLabel(labels, kRepeatLabel) : 0;
  out.terminating = metadata.contains("deletionTimestamp") && !metadata["deletionTimestamp"].is_null();
  out.created_at = metadata.value("creationTimestamp", "");
  const json status = pod.value("status", json::object());
  out.phase = status.value("phase", kPodPending);
  out.pod_ip = status.value("podIP", "");
  out.node_name = pod.value("spec", json::object()).value("nodeName", "");
  out.placed = !out.node_name.empty();
  for (const auto& condition : status.value("conditions", json::array())) {
    const std::string type = condition.value("type", "");
    const std::string said = condition.value("status", "");
    const bool holds = said == "True";
    if (type == "Ready") {
      out.ready = holds;
      out.marked_not_ready = said == "False";
    }
    if (type != "PodScheduled") continue;
    if (holds) out.placed = true;
    if (!holds && condition.value("reason", "") == "Unschedulable") {
      out.unschedulable = condition.value("message", "");
      if (out.unschedulable.empty()) out.unschedulable = "the scheduler found no node for it";
    }
  }
  for (const auto& container : status.value("containerStatuses", json::array())) {
    const json state = container.value("state", json::object());
    if (state.contains("waiting")) {
      const json& waiting = state["waiting"];
      out.waiting = waiting.value("reason", "");
      if (const std::string message = waiting.value("message", ""); !message.empty()) out.waiting += ": " + message;
    }
    if (!state.contains("terminated")) continue;
    const json& terminated = state["terminated"];
    out.exit_code = terminated.value("exitCode", 0);
    out.termination_reason = terminated.value("reason", "");
    out.termination_message = terminated.value("message", "");
    out.finished_at = terminated.value("finishedAt", "");
  }
  return out;
}

WorkerCounts CountWorkers(const std::vector<WorkerPod>& pods) {
  WorkerCounts counts;
  for (const WorkerPod& pod : pods) {
    if (pod.ready) ++counts.ready;
    if (pod.phase == kPodRunning) ++counts.running;
    if (pod.phase == kPodSucceeded) ++counts.succeeded;
    if (pod.phase == kPodFailed) ++counts.failed;
  }
  return counts;
}

RankResult RankResultOf(const WorkerPod& pod, const Benchmark& benchmark) {
  auto parsed = ParseRankResult(pod.termination_message);
  if (parsed.ok()) return std::move(parsed).value();
  RankResult missing;
  missing.benchmark = benchmark.metadata.name;
  missing.task = benchmark.spec.task;
  missing.backend = benchmark.spec.backend;
  missing.rank = pod.rank;
  missing.world_size = benchmark.spec.workers;
  missing.status = kRankFailed;
  if (!pod.node_lost.empty()) {
    missing.error = "pod " + pod.name + " was lost with its node: " + pod.node_lost;
    return missing;
  }
  missing.error = "pod " + pod.name + " ended";
  if (pod.exit_code) missing.error += " with exit code " + std::to_string(*pod.exit_code);
  if (!pod.termination_reason.empty()) missing.error += " (" + pod.termination_reason + ")";
  missing.error += " without a result";
  if (!pod.termination_message.empty()) missing.error += "; last log lines:\n" + pod.termination_message;
  return missing;
}

bool TrimWorkerPod(nlohmann::json* pod) {
  const std::optional<nlohmann::json> owner = ControllerReference(*pod);
  if (!owner || owner->value("kind", "") != "Benchmark" || owner->value("apiVersion", "").rfind("ergobench.io/", 0) != 0) {
    return false;
  }
  (*pod)["metadata"].erase("managedFields");
  (*pod)["metadata"].erase("annotations");
  return true;
}

bool HasEnded(const WorkerPod& pod) { return pod.phase == kPodSucceeded || pod.phase == kPodFailed; }

bool MayBeOnLostNode(const WorkerPod& pod) {
  return pod.placed && !pod.node_name.empty() && pod.marked_not_ready && !HasEnded(pod);
}

std::string LostNodeOf(const std::string& name, const std::optional<json>& node) {
  if (!node) return "node " + name + " no longer exists";
  // Read as the API server should have written it; a malformed node is not lost.
  const auto status = node->is_object() ? node->find("status") : node->end();
  if (status == node->end() || !status->is_object()) return "";
  const auto conditions = status->find("conditions");
  if (conditions == status->end() || !conditions->is_array()) return "";
  for (const json& condition : *conditions) {
    if (StringField(condition, "type") != "Ready") continue;
    if (StringField(condition, "status") != "Unknown") return "";
    std::string why = "node " + name + " stopped reporting";
    const std::string reason = StringField(condition, "reason");
    const std::string message = StringField(condition, "message");
    // The kubelet's or the controller's words, bounded: a node's status is anyone's who can write it.
    const std::string words = reason + (reason.empty() || message.empty() ? "" : ": ") + message;
    return words.empty() ? why : why + " (" + AbbreviateUtf8(words, kMaxNodeWordsBytes) + ")";
  }
  return "";
}

std::vector<std::string> ActivePodNames(const std::vector<WorkerPod>& pods) {
  std::vector<std::string> names;
  for (const WorkerPod& pod : pods) {
    if (!HasEnded(pod) && !pod.terminating) names.push_back(pod.name);
  }
  return names;
}

}  // namespace ergobench::controller

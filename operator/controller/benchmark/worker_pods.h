// What the controller needs to know of one worker pod, read from its status: phase,
// readiness, and for an ended pod its exit code and termination message (the rank's
// result, or the last log lines when the rank died before writing one).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/v1alpha1/benchmark.h"
#include "api/v1alpha1/result.h"
#include "kube/runtime/store.h"
#include "operator/controller/benchmark/builders.h"

namespace ergobench::controller {

// Kubernetes' pod phases (core/v1 PodPhase).
inline constexpr char kPodPending[] = "Pending";
inline constexpr char kPodRunning[] = "Running";
inline constexpr char kPodSucceeded[] = "Succeeded";
inline constexpr char kPodFailed[] = "Failed";
inline constexpr char kPodUnknown[] = "Unknown";
// The grace period of a pod deleted while still Pending (reconciler.cc, DeletePods).
inline constexpr int64_t kStartingPodGraceSeconds = 1;

struct WorkerPod {
  std::string name;
  int64_t rank = -1;     // from the rank label; -1 when absent or malformed
  bool launcher = false;  // a launcher pod (backend_plugin.h: MPI's), which has no rank
  int64_t attempt = -1;     // from the attempt label
  int64_t generation = -1;  // from the generation label: the spec it runs
  int64_t repeat = 0;       // from the repeat label; absent: the first
  std::string phase;     // Pending | Running | Succeeded | Failed | Unknown
  bool ready = false;
  bool marked_not_ready = false;  // its Ready condition says False (absent: not yet known)
  bool terminating = false;  // metadata.deletionTimestamp is set
  std::string pod_ip;
  bool placed = false;        // bound to a node: spec.nodeName, or PodScheduled True
  std::string node_name;      // spec.nodeName
  std::string unschedulable;  // the scheduler's word when it could not place it (PodScheduled False)
  std::string created_at;     // metadata.creationTimestamp, RFC 3339
  std::string waiting;        // why its container has not started: "ImagePullBackOff: ..."
  std::optional<int> exit_code;
  std::string termination_reason;   // "Error", "OOMKilled", ...
  std::string termination_message;
  std::string finished_at;          // RFC 3339, for ordering failures
  // Why its node is lost ("" while it is not): the node stopped reporting (Ready Unknown) or no
  // longer exists. Set by the reconciler from the Node (LostNodeOf), never read from the pod.
  std::string node_lost;
};

WorkerPod ReadWorkerPod(const nlohmann::json& pod);

inline bool InGang(const WorkerPod& pod, const Gang& gang) {
  return pod.generation == gang.generation && pod.attempt == gang.attempt && pod.repeat == gang.repeat;
}

// The pod cache's transform (runtime::Store::Transform): only a pod a Benchmark controls, which
// its label alone does not prove (anyone who creates pods may set it), and without
// managedFields and annotations, which no reconciler reads and a pod's author may make large.
bool TrimWorkerPod(nlohmann::json* pod);

// The Benchmark a pod belongs to by its label, "namespace/name" ("" for none): what a pod event
// makes us reconcile, and the index of the pod cache.
std::string WorkerPodOwnerKey(const nlohmann::json& pod);

// The worker pods in `pods` (indexed by WorkerPodOwnerKey) that `benchmark` owns: its label,
// and its UID as their controller, so that the pods of a deleted namesake are never taken for
// this one's.
std::vector<WorkerPod> OwnedWorkerPods(const Benchmark& benchmark, const runtime::Store& pods);

WorkerCounts CountWorkers(const std::vector<WorkerPod>& pods);

// Succeeded or Failed: every container has ended, and none will run again.
bool HasEnded(const WorkerPod& pod);

// How often the node of a pod that MayBeOnLostNode is read while it is not lost: a pod marked
// not Ready before its node stopped reporting gets no second mark, and so brings no event.
inline constexpr std::chrono::seconds kLostNodeRecheck{10};

// A pod whose node may be lost: placed, not ended, and marked not Ready, as the node lifecycle
// controller marks every pod of a node that stopped reporting. Only these make the reconciler
// read their node.
bool MayBeOnLostNode(const WorkerPod& pod);

// Why `node` (a Node object, or nothing when the API says it does not exist) counts as lost for
// the pods on it, or "" when it does not: its kubelet has stopped reporting (Ready Unknown,
// after the controller manager's node-monitor-grace-period, 40 s by default) or it is gone. A
// node whose kubelet reports NotReady still runs and stops its pods itself: not lost.
std::string LostNodeOf(const std::string& name, const std::optional<nlohmann::json>& node);

// The pods that have not ended and are not already being deleted.
std::vector<std::string> ActivePodNames(const std::vector<WorkerPod>& pods);

// The rank's result from its termination message; a pod that ended without one (killed,
// out of memory, crashed before writing) gets a Failed result that says how it ended.
RankResult RankResultOf(const WorkerPod& pod, const Benchmark& benchmark);

}  // namespace ergobench::controller

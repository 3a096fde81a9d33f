// The Benchmark reconciler. It reads top to bottom, as controller-runtime reconcilers do:
// get the Benchmark and its pods from the caches, validate, plan (plan.h, pure), create what
// is missing, write the status through /status, then delete what the plan says and record
// Events; and, when it finishes, the results ConfigMap first. Errors come back to the controller loop for a rate-limited retry; an invalid
// Benchmark is terminal (condition Failed, reason Invalid, no retry).
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "api/pricing/cost.h"
#include "api/v1alpha1/benchmark.h"
#include "base/clock.h"
#include "base/status.h"
#include "kube/client/client.h"
#include "kube/runtime/reconcile_result.h"
#include "kube/runtime/store.h"
#include "operator/controller/benchmark/mpi/ssh_keys.h"
#include "operator/controller/benchmark/plan.h"
#include "operator/controller/benchmark/progress_poller.h"
#include "operator/controller/common/pod_policy.h"

namespace ergobench::controller {

struct ReconcilerDeps {
  kube::KubeClient* client = nullptr;
  // The watchers' caches. The reconciler also puts its own writes in them, so the next
  // reconcile does not act on a copy older than what it just wrote (each stale read costs a
  // 409 or an AlreadyExists round trip).
  runtime::Store* benchmarks = nullptr;
  runtime::Store* pods = nullptr;
  runtime::Store* datasets = nullptr;  // null: a spec.dataset.ref waits as for a missing Dataset
  const ProgressCache* progress = nullptr;  // may be null: no progress in status
  const TimeSource* time = &SteadyTime();  // wall time: status timestamps, TTLs, price ages
  // Called once when a Benchmark reaches Succeeded or Failed.
  std::function<void(const Benchmark&)> on_finished;
  // The image of Benchmarks that name none; empty: DefaultRunnerImage(), which suits only a
  // node that has the image under its short name.
  std::string runner_image;
  // What authors may ask of the pods (images, tolerations, priority, scheduler).
  PodPolicy policy;
  // Where Events go: the operator's runtime::EventRecorder, which sends them off the
  // reconcile path. Empty: none are recorded.
  std::function<void(const std::string& ns, nlohmann::json event)> record_event;
  // Rank 0's files, taken by the poller; null: the results ConfigMap says none were taken.
  ArtifactCache* artifacts = nullptr;
  // The node energy agent's hostPort (the chart's energyAgent); 0: no agent.
  int energy_agent_port = 0;
  // The ssh keys of an MPI run's Secret.
  SshKeyGenerator ssh_keys = GenerateSshKey;
  // What finished runs cost (cost.h): the catalog the chart mounts; null: the built-in one.
  PriceCatalogSource* prices = nullptr;
  int64_t price_max_age_days = kDefaultPriceMaxAgeDays;
  // The BenchmarkSweeps: a sweep's point waits for its sweep to read how it ended before its
  // ttlSecondsAfterFinished deletes it. Null: no waiting.
  const runtime::Store* sweeps = nullptr;
  // A Benchmark's artifact token (ArtifactKeySource::TokenFor, by the Benchmark's uid), which
  // its rank 0 requires of whoever fetches its files. Empty: rank 0 serves them to anyone.
  std::function<StatusOr<std::string>(const std::string& benchmark_uid)> artifact_token = nullptr;
  // The NetworkPolicyPeers that may reach a gang's metrics port (BuildGangNetworkPolicy), or
  // nothing: no NetworkPolicy.
  std::optional<nlohmann::json> network_policy_metrics_peers = std::nullopt;
};

// How long a finished sweep point waits past its ttlSecondsAfterFinished for its sweep to read
// it: a sweep whose controller does not run must not keep its points forever.
inline constexpr std::chrono::seconds kSweepReadGrace{60};

// Reasons of the Failed condition of a Benchmark that was never admitted.
inline constexpr char kReasonInvalid[] = "Invalid";
inline constexpr char kReasonPolicyViolation[] = "PolicyViolation";

class BenchmarkReconciler {
 public:
  explicit BenchmarkReconciler(ReconcilerDeps deps) : deps_(std::move(deps)) {}

  // `key` is "namespace/name". The value is when to look again, if at all.
  runtime::ReconcileResult Reconcile(const std::string& key);

 private:
  std::string RunnerImage() const;
  // Why `benchmark` may not run (reason, message), or empty: its decoding and validation errors,
  // then the policy.
  std::pair<std::string, std::string> Admit(const Benchmark& benchmark, FieldErrors errors) const;
  // Writes `status`, with the columns kubectl shows made from it (status.display), as
  // `benchmark`'s status.
  Status WriteStatus(const nlohmann::json& object, const Benchmark& benchmark, BenchmarkStatus status);
  // Rank 0's progress of the current gang, as the poller last read it, with the spec's
  // maxEpochs and goal; nothing before the first read.
  std::optional<Progress> ProgressOf(const std::string& key, const BenchmarkSpec& spec, const BenchmarkStatus& status) const;
  // Fails a Benchmark that may not run (once: not again when `already_failed`), stopping its workers.
  Status Reject(const nlohmann::json& object, Benchmark* benchmark, const std::string& reason,
                const std::string& message, bool already_failed, const std::string& now);
  Status CreateMissing(const Benchmark& benchmark, const ReconcilePlan& plan);
  Status CreateBackendSecret(const Benchmark& benchmark);  // its plugin's (backend_plugin.h), if any
  Status CreateArtifactTokenSecret(const Benchmark& benchmark);
  // A Benchmark being deleted: every pod of its gang not yet terminating. Ends the reconcile.
  runtime::ReconcileResult StopGang(const Benchmark& benchmark);
  // ttlSecondsAfterFinished has passed; gone or replaced meanwhile is done too. Ends the reconcile.
  runtime::ReconcileResult DeleteAfterTtl(const std::string& key, const Benchmark& benchmark);
  // A Secret whose name holds the Benchmark's uid: one that exists is this Benchmark's, made by
  // an earlier round, and is not read (the operator has no get on tenants' Secrets).
  Status CreateOwnSecret(const nlohmann::json& secret);
  // The system the ranks ran on, read from their nodes, and what the run cost.
  Status DescribeAndPrice(const Benchmark& benchmark, BenchmarkResults* results);
  // spec.baseline's verdicts in the plan's results, and the Regressed condition (and Event);
  // Unknown, saying why, when the baseline cannot be read or has not succeeded.
  Status JudgeBaseline(const Benchmark& benchmark, ReconcilePlan* plan);
  StatusOr<BenchmarkResults> ReadBaseline(const Benchmark& benchmark);
  // AlreadyExists is success only for an object this Benchmark controls (AdoptOwn).
  Status CreateChild(const Benchmark& owner, const kube::ApiResource& resource, const nlohmann::json& desired);
  Status AdoptOwn(const Benchmark& owner, const kube::ApiResource& resource, const nlohmann::json& desired);
  runtime::ReconcileResult AfterCreateFailed(const nlohmann::json& object, const Benchmark& benchmark,
                                             BenchmarkStatus status, const Status& error);
  // Pods on a lost node (`lost`) go with no grace period: no kubelet will ever confirm them.
  Status DeletePods(const std::string& ns, const std::vector<std::string>& names,
                    const std::set<std::string>& lost = {});
  // Sets node_lost on the pods that MayBeOnLostNode, reading each of their nodes once; the
  // names of those on a lost node.
  StatusOr<std::set<std::string>> FindLostNodes(std::vector<WorkerPod>* pods);
  // A sweep's point whose sweep has not read how it ended (SweepAwaitsItsEnd), for at most
  // kSweepReadGrace past its ttlSecondsAfterFinished.
  bool AwaitsItsSweep(const nlohmann::json& object, const Benchmark& benchmark) const;
  // Resolves spec.dataset.ref into `benchmark`; true while it must wait, the condition set in
  // its status (and, with `write`, the status written).
  StatusOr<bool> WaitForDataset(const nlohmann::json& object, Benchmark* benchmark, const BenchmarkStatus& stored,
                                const std::string& now, bool write);
  // Writes the results ConfigMap of `finished` from its gang's pods and rank 0's files. A
  // refusal no retry mends (a quota, an invalid object) must not hold it unfinished: an Event
  // says what was not kept, and only a transient error is returned.
  Status KeepResults(const std::string& key, const Benchmark& finished, const std::vector<WorkerPod>& pods);
  Status WriteResultsConfigMap(const std::string& key, const Benchmark& finished, const std::vector<WorkerPod>& pods);
  void OnFinished(const std::string& key, const Benchmark& finished);
  void RecordEvent(const Benchmark& benchmark, const std::string& type, const std::string& reason,
                   const std::string& message);

  ReconcilerDeps deps_;
};

}  // namespace ergobench::controller

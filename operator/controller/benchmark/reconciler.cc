#include "operator/controller/benchmark/reconciler.h"

#include <algorithm>
#include <map>

#include "api/analysis/aggregate.h"
#include "api/analysis/regression.h"
#include "api/v1alpha1/benchmark_codec.h"
#include "api/v1alpha1/benchmark_display.h"
#include "api/v1alpha1/benchmark_phase.h"
#include "api/v1alpha1/defaults.h"
#include "api/v1alpha1/validation.h"
#include "base/rfc3339.h"
#include "kube/client/api_error.h"
#include "kube/runtime/log.h"
#include "kube/runtime/slow_start.h"
#include "operator/controller/benchmark/artifact_token.h"
#include "operator/controller/benchmark/backend_plugin.h"
#include "operator/controller/benchmark/builders.h"
#include "operator/controller/benchmark/dataset_ref.h"
#include "operator/controller/benchmark/node_facts.h"
#include "operator/controller/benchmark/plan.h"
#include "operator/controller/benchmark/results_config_map.h"
#include "operator/controller/common/conditions.h"
#include "operator/controller/common/ownership.h"

namespace ergobench::controller {
namespace {

using nlohmann::json;

// What a later try may get past: the API server or the network was unavailable, or a write raced.
bool IsTransient(const Status& error) {
  return error.code() == StatusCode::kUnavailable || error.code() == StatusCode::kDeadlineExceeded ||
         kube::IsConflict(error);
}

}  // namespace

Status BenchmarkReconciler::CreateChild(const Benchmark& owner, const kube::ApiResource& resource,
                                        const json& desired) {
  const std::string ns = desired["metadata"].value("namespace", "");
  const std::string name = desired["metadata"].value("name", "");
  auto created = deps_.client->Create(resource, ns, desired);
  if (kube::IsAlreadyExists(created.status())) return AdoptOwn(owner, resource, desired);
  if (created.ok() && resource.kind == kube::Pods().kind) {
    deps_.pods->ApplyOwnWrite(*created, "");
  }
  return created.status().WithContext("create " + resource.kind + " " + name);
}

Status BenchmarkReconciler::AdoptOwn(const Benchmark& owner, const kube::ApiResource& resource,
                                     const json& desired) {
  const std::string ns = desired["metadata"].value("namespace", "");
  const std::string name = desired["metadata"].value("name", "");
  // Our cache may lag our own create: then the object is ours. Or it is a deleted namesake's,
  // still waiting for garbage collection: adopting it would run the old spec, or lose the
  // object under the new pods when the collector gets to it.
  ASSIGN_OR_RETURN(const json existing, deps_.client->Get(resource, ns, name));
  const std::string controller = ControllerUid(existing);
  if (controller != owner.metadata.uid) {
    const std::string holder = controller.empty() ? "another owner (it has no controller)"
                                                   : "an earlier Benchmark " + owner.metadata.name + " (uid " + controller + ")";
    return Status::FailedPrecondition(resource.kind + " " + name + " belongs to " + holder +
                                      "; waiting for garbage collection to remove it");
  }
  // Ours, but perhaps written for an earlier generation of the spec: the ConfigMap a new gang
  // reads is replaced, over the version just read, before any of its pods exist.
  if (!desired.contains("data") || existing.value("data", json()) == desired["data"]) return Status::Ok();
  json replacement = desired;
  replacement["metadata"]["resourceVersion"] = existing["metadata"].value("resourceVersion", "");
  return deps_.client->Replace(resource, ns, name, replacement).status().WithContext("replace " + resource.kind + " " + name);
}

Status BenchmarkReconciler::CreateMissing(const Benchmark& benchmark, const ReconcilePlan& plan) {
  // Concurrently, a round trip each rather than one per object: the Service and the ConfigMap
  // the pods need, then the pods in the Job controller's slow-start batches (1, 2, 4, ...).
  if (plan.create_service_and_config) {
    std::vector<std::function<Status()>> creates = {
        [&] { return CreateChild(benchmark, kube::Services(), BuildWorkerService(benchmark)); },
        [&] { return CreateChild(benchmark, kube::ConfigMaps(), BuildConfigMap(benchmark)); },
        [&] { return CreateBackendSecret(benchmark); },
    };
    if (deps_.artifact_token) creates.push_back([&] { return CreateArtifactTokenSecret(benchmark); });
    if (deps_.network_policy_metrics_peers) {
      creates.push_back([&] {
        return CreateChild(benchmark, kube::NetworkPolicies(),
                           BuildGangNetworkPolicy(benchmark, *deps_.network_policy_metrics_peers));
      });
    }
    RETURN_IF_ERROR(runtime::RunConcurrently(creates));
  }
  const Gang gang = CurrentGang(plan.status);
  const WorkerPodOptions pod_options{deps_.energy_agent_port,
                                     deps_.artifact_token ? ArtifactTokenSecretName(benchmark) : ""};
  RETURN_IF_ERROR(runtime::SlowStartBatches(plan.create_ranks.size(), 1, [&](size_t i) {
    json pod = BuildWorkerPod(benchmark, plan.create_ranks[i], gang, pod_options);
    RestrictFetches(benchmark, deps_.policy.dataset_allowed_networks, &pod);
    return CreateChild(benchmark, kube::Pods(), pod);
  }));
  if (plan.create_launcher) {
    RETURN_IF_ERROR(CreateChild(benchmark, kube::Pods(), BackendOf(benchmark).BuildLauncherPod(benchmark, gang)));
  }
  return Status::Ok();
}

Status BenchmarkReconciler::CreateBackendSecret(const Benchmark& benchmark) {
  auto secret = BackendOf(benchmark).BuildSecret(benchmark, deps_.ssh_keys);
  if (!secret.ok()) return secret.status();
  return *secret ? CreateOwnSecret(**secret) : Status::Ok();
}

Status BenchmarkReconciler::CreateArtifactTokenSecret(const Benchmark& benchmark) {
  // Derived, never read back: the same token whenever the operator needs it (artifact_token.h).
  auto token = deps_.artifact_token(benchmark.metadata.uid);
  if (!token.ok()) return token.status().WithContext("derive the artifact token");
  return CreateOwnSecret(BuildArtifactTokenSecret(benchmark, *token));
}

Status BenchmarkReconciler::CreateOwnSecret(const json& secret) {
  const std::string& ns = secret["metadata"]["namespace"].get_ref<const std::string&>();
  const std::string& name = secret["metadata"]["name"].get_ref<const std::string&>();
  auto created = deps_.client->Create(kube::Secrets(), ns, secret);
  if (kube::IsAlreadyExists(created.status())) return Status::Ok();
  return created.status().WithContext("create Secret " + name);
}

runtime::ReconcileResult BenchmarkReconciler::AfterCreateFailed(const json& object, const Benchmark& benchmark,
                                                                BenchmarkStatus status, const Status& error) {
  const std::string now = Rfc3339(deps_.time->WallNow());
  const int64_t generation = benchmark.metadata.generation;
  if (kube::IsInvalid(error)) {
    // The API found the object invalid (422), and will each time: the run cannot start.
    status = FailedStatus(benchmark, status, "CreateRejected", error.message(), now);
    RETURN_IF_ERROR(WriteStatus(object, benchmark, status));
    RecordEvent(benchmark, "Warning", "CreateRejected", error.message());
    if (deps_.on_finished) {
      Benchmark finished = benchmark;
      finished.status = status;
      deps_.on_finished(finished);
    }
    return runtime::Result::Terminal(error);  // counted as an error, never retried
  }
  // Anything else may pass (a quota frees up, a policy is fixed, garbage collection runs):
  // say why in status, and retry with backoff.
  const char* reason = error.code() == StatusCode::kFailedPrecondition ? "WaitingForStaleChildren"
                       : kube::IsFatal(error)                         ? "CreateForbidden"
                                                                      : "CreateFailed";
  SetCondition(&status.conditions, kConditionCreated, false, reason, error.message(), generation, now);
  if (EncodeStatus(status) != EncodeStatus(benchmark.status)) {
    Status written = WriteStatus(object, benchmark, status);
    if (!written.ok()) return written;
  }
  return error;
}

Status BenchmarkReconciler::WriteStatus(const json& object, const Benchmark& benchmark, BenchmarkStatus status) {
  Benchmark shown = benchmark;
  shown.status = status;
  status.display = DisplayOf(shown);
  json updated = object;
  updated["status"] = EncodeStatus(status);
  auto written = deps_.client->UpdateStatus(kube::Benchmarks(), updated);
  if (written.ok()) deps_.benchmarks->ApplyOwnWrite(*written, object["metadata"].value("resourceVersion", ""));
  return written.status().WithContext("update status");
}

void BenchmarkReconciler::RecordEvent(const Benchmark& benchmark, const std::string& type, const std::string& reason,
                                      const std::string& message) {
  if (deps_.record_event) {
    deps_.record_event(benchmark.metadata.namespace_name, BuildEvent(benchmark, type, reason, message, Rfc3339(deps_.time->WallNow())));
  }
}

StatusOr<std::set<std::string>> BenchmarkReconciler::FindLostNodes(std::vector<WorkerPod>* pods) {
  std::map<std::string, std::string> lost;  // by node name: why, or "" when it is not lost
  std::set<std::string> on_lost_nodes;
  for (WorkerPod& pod : *pods) {
    if (!MayBeOnLostNode(pod)) continue;
    if (!lost.contains(pod.node_name)) {
      StatusOr<json> node = deps_.client->Get(kube::Nodes(), "", pod.node_name);
      if (!node.ok() && IsTransient(node.status())) return node.status().WithContext("read node " + pod.node_name);
      std::string why;  // and not ours to read (RBAC): not known to be lost, the gang waits as before
      if (node.ok()) why = LostNodeOf(pod.node_name, *node);
      if (kube::IsNotFound(node.status())) why = LostNodeOf(pod.node_name, std::nullopt);
      lost[pod.node_name] = why;
    }
    pod.node_lost = lost[pod.node_name];
    if (!pod.node_lost.empty()) on_lost_nodes.insert(pod.name);
  }
  return on_lost_nodes;
}

Status BenchmarkReconciler::DeletePods(const std::string& ns, const std::vector<std::string>& names,
                                       const std::set<std::string>& lost) {
  for (const std::string& pod : names) {
    // The UID the plan saw: a pod that has since been replaced under the name is not this one.
    const auto cached = deps_.pods->Get(ns + "/" + pod);
    const std::string uid = cached ? (*cached)["metadata"].value("uid", "") : "";
    // A pod whose containers have all ended goes at once: none can run again, and a kubelet
    // before v1.22 removes the object only once it has also removed the containers, which for
    // a container that ended before the deletion waits for its garbage collection (each
    // minute): the next gang would wait that long for the names. A pod still Pending has done
    // no work, and a SIGTERM that reaches it as its container starts is lost (PID 1 without a
    // handler yet): it is stopped after a second rather than its whole grace period. Either
    // way the object goes only once its containers have stopped: a new gang never meets it.
    kube::DeleteOptions options(uid);
    const std::optional<WorkerPod> read = cached ? std::optional(ReadWorkerPod(*cached)) : std::nullopt;
    if (read && HasEnded(*read)) options.grace_period_seconds = 0;
    if (read && read->phase == kPodPending) options.grace_period_seconds = kStartingPodGraceSeconds;
    if (lost.contains(pod)) options.grace_period_seconds = 0;
    auto deleted = deps_.client->Delete(kube::Pods(), ns, pod, options);
    const bool gone = kube::IsNotFound(deleted.status()) || kube::IsConflict(deleted.status());
    if (!deleted.ok() && !gone) return deleted.status().WithContext("delete pod " + pod);
    // A graceful deletion answers with the pod marked: cache it, so the next look does not
    // delete it again before the watch reports it.
    if (deleted.ok() && cached && deleted->value("kind", "") == "Pod") {
      deps_.pods->ApplyOwnWrite(*deleted, (*cached)["metadata"].value("resourceVersion", ""));
    }
  }
  return Status::Ok();
}

runtime::ReconcileResult BenchmarkReconciler::StopGang(const Benchmark& benchmark) {
  // The launcher too; ended pods as well, which go at once, even those already being deleted
  // (PlanReconcile says why).
  std::vector<std::string> gang;
  for (const WorkerPod& pod : OwnedWorkerPods(benchmark, *deps_.pods)) {
    if (!pod.terminating || HasEnded(pod)) gang.push_back(pod.name);
  }
  RETURN_IF_ERROR(DeletePods(benchmark.metadata.namespace_name, gang));
  return runtime::Result::Done();
}

runtime::ReconcileResult BenchmarkReconciler::DeleteAfterTtl(const std::string& key, const Benchmark& benchmark) {
  runtime::Log(runtime::LogLevel::kInfo, "deleting finished benchmark: ttlSecondsAfterFinished passed", {{"benchmark", key}});
  const Status deleted = deps_.client
                             ->Delete(kube::Benchmarks(), benchmark.metadata.namespace_name, benchmark.metadata.name,
                                      kube::DeleteOptions(benchmark.metadata.uid))
                             .status();
  if (!deleted.ok() && !kube::IsNotFound(deleted) && !kube::IsConflict(deleted)) return deleted;
  return runtime::Result::Done();
}

bool BenchmarkReconciler::AwaitsItsSweep(const nlohmann::json& object, const Benchmark& benchmark) const {
  const std::string sweep_key = LabelOwnerKey(object, kSweepLabel);
  if (deps_.sweeps == nullptr || sweep_key.empty()) return false;
  const std::optional<nlohmann::json> sweep = deps_.sweeps->Get(sweep_key);
  if (!SweepAwaitsItsEnd(object, sweep ? &*sweep : nullptr)) return false;
  const auto finished = ParseRfc3339(benchmark.status.completion_time);
  const int64_t ttl = benchmark.spec.run_policy.ttl_seconds_after_finished.value_or(0);
  if (finished && deps_.time->WallNow() < *finished + std::chrono::seconds(ttl) + kSweepReadGrace) return true;
  runtime::Log(runtime::LogLevel::kWarning, "deleting a sweep's point its sweep has not read",
               {{"benchmark", benchmark.metadata.namespace_name + "/" + benchmark.metadata.name}});
  return false;
}

Status BenchmarkReconciler::KeepResults(const std::string& key, const Benchmark& finished,
                                        const std::vector<WorkerPod>& pods) {
  const Status kept = WriteResultsConfigMap(key, finished, pods);
  if (kept.ok() || IsTransient(kept)) return kept;
  RecordEvent(finished, "Warning", "ResultsNotKept", kept.message() + "; the results are in status only");
  return Status::Ok();
}

void BenchmarkReconciler::OnFinished(const std::string& key, const Benchmark& finished) {
  if (deps_.artifacts != nullptr) deps_.artifacts->Forget(key);
  runtime::Log(runtime::LogLevel::kInfo, "benchmark finished", {{"benchmark", key}, {"phase", finished.status.phase}});
  if (deps_.on_finished) deps_.on_finished(finished);
}

Status BenchmarkReconciler::WriteResultsConfigMap(const std::string& key, const Benchmark& finished,
                                                  const std::vector<WorkerPod>& pods) {
  const Gang gang = CurrentGang(finished.status);
  std::vector<RankResult> ranks;
  for (const WorkerPod& pod : pods) {
    if (!InGang(pod, gang)) continue;
    if (StatusOr<RankResult> result = ParseRankResult(pod.termination_message); result.ok()) ranks.push_back(*result);
  }
  std::sort(ranks.begin(), ranks.end(), [](const RankResult& a, const RankResult& b) { return a.rank < b.rank; });
  CollectedArtifacts artifacts;
  if (deps_.artifacts != nullptr) artifacts.bundle = deps_.artifacts->Get(key, gang);
  if (!artifacts.bundle) {
    artifacts.missing_reason = "the operator did not take them: rank 0 offers them for " +
                               std::to_string(static_cast<int>(kArtifactLingerSeconds)) +
                               " s after its run, unless it fails to start, is stopped, or the operator restarts";
  }
  const json desired = BuildResultsConfigMap(finished, ranks, artifacts);
  const std::string ns = finished.metadata.namespace_name;
  const std::string name = ResultsConfigMapName(finished);
  auto created = deps_.client->Create(kube::ConfigMaps(), ns, desired);
  if (!kube::IsAlreadyExists(created.status())) return created.status().WithContext("create ConfigMap " + name);
  // Ours from an earlier try of this reconcile is replaced; another Benchmark's kept results stay.
  ASSIGN_OR_RETURN(const json existing, deps_.client->Get(kube::ConfigMaps(), ns, name));
  const std::string holder = existing["metadata"].value("annotations", json::object()).value(kResultsOfUidAnnotation, "");
  if (holder != finished.metadata.uid) {
    RecordEvent(finished, "Warning", "ResultsNotKept",
                "ConfigMap " + name + " holds the results of an earlier Benchmark " + finished.metadata.name + " (uid " +
                    holder + "); delete it to keep this run's, which are in status only");
    return Status::Ok();
  }
  json replacement = desired;
  replacement["metadata"]["resourceVersion"] = existing["metadata"].value("resourceVersion", "");
  return deps_.client->Replace(kube::ConfigMaps(), ns, name, replacement).status().WithContext("replace ConfigMap " + name);
}

Status BenchmarkReconciler::DescribeAndPrice(const Benchmark& benchmark, BenchmarkResults* results) {
  // The ranks' nodes, as the runners read them from the downward API.
  std::map<std::string, int64_t> ranks_on;
  std::vector<std::string> order;
  for (const json& node : results->environment.value("nodes", json::array())) {
    if (!node.is_string()) continue;
    if (ranks_on[node.get<std::string>()]++ == 0) order.push_back(node.get<std::string>());
  }
  // The node agent said whether others ran there; without it, a node is not known to be ours.
  const auto& shared = results->figures.energy_shared_with;
  const bool alone = shared && shared->empty();
  std::vector<NodeUse> uses;
  std::vector<NodeFacts> facts;
  for (const std::string& name : order) {
    StatusOr<json> node = deps_.client->Get(kube::Nodes(), "", name);
    if (!node.ok() && IsTransient(node.status())) return node.status();
    NodeUse& use = uses.emplace_back(NodeUse{{}, ranks_on[name], alone});
    if (node.ok()) {
      use.node = NodeFactsOf(*node);
    } else {
      // Gone, or not ours to read (RBAC): the run is still described, without the node's labels.
      results->cost_warnings.push_back("node " + name + " could not be read: " + node.status().message());
      use.node.name = name;
    }
    facts.push_back(use.node);
  }
  results->system = DescribeSystem(facts, results->environment);
  const PriceCatalog catalog = deps_.prices != nullptr ? deps_.prices->Current() : BuiltInPriceCatalog();
  if (deps_.prices != nullptr && !deps_.prices->error().empty()) {
    results->cost_warnings.push_back("price catalog " + deps_.prices->dir() + " is unreadable, the last good one was used: " +
                                     deps_.prices->error());
  }
  PriceResults(benchmark.spec, uses, {&catalog, deps_.time->WallNow(), deps_.price_max_age_days}, results);
  return Status::Ok();
}

StatusOr<BenchmarkResults> BenchmarkReconciler::ReadBaseline(const Benchmark& benchmark) {
  const Baseline& b = *benchmark.spec.baseline;
  const std::string& ns = benchmark.metadata.namespace_name;
  if (!b.path.empty()) {
    return Status::InvalidArgument("spec.baseline.path is read by `ergobench run` only; on a cluster name a Benchmark "
                                   "or a results ConfigMap");
  }
  const bool kept = !b.config_map.empty();
  const std::string what = DescribeBaseline(b);
  StatusOr<json> object = kept ? deps_.client->Get(kube::ConfigMaps(), ns, b.config_map)
                               : deps_.client->Get(kube::Benchmarks(), ns, b.benchmark);
  if (!object.ok()) return object.status().WithContext("read the baseline " + what);
  // A kept results ConfigMap holds the Benchmark as it finished, in benchmark.json.
  const json run = kept ? json::parse(object->value("data", json::object()).value("benchmark.json", ""), nullptr,
                                      /*allow_exceptions=*/false)
                        : *object;
  return BaselineResults(run, "the baseline " + what);
}

Status BenchmarkReconciler::JudgeBaseline(const Benchmark& benchmark, ReconcilePlan* plan) {
  BenchmarkStatus* status = &plan->status;
  if (!benchmark.spec.baseline || !status->results || status->phase != kPhaseSucceeded) return Status::Ok();
  const Baseline& b = *benchmark.spec.baseline;
  StatusOr<BenchmarkResults> baseline = ReadBaseline(benchmark);
  if (!baseline.ok() && IsTransient(baseline.status())) return baseline.status();
  const int64_t generation = benchmark.metadata.generation;
  const std::string now = Rfc3339(deps_.time->WallNow());
  if (!baseline.ok()) {
    SetCondition(&status->conditions,
                 {kConditionRegressed, "Unknown", "BaselineUnavailable", baseline.status().message(), "", 0},
                 generation, now);
    return Status::Ok();
  }
  JudgeAgainstBaseline(*baseline, DescribeBaseline(b), b.tolerances, &*status->results);
  const Condition regressed = *RegressionCondition(*status->results);
  SetCondition(&status->conditions, regressed, generation, now);
  if (regressed.status == "True") plan->events.push_back({"Warning", regressed.reason, regressed.message});
  return Status::Ok();
}

std::string BenchmarkReconciler::RunnerImage() const {
  return deps_.runner_image.empty() ? DefaultRunnerImage() : deps_.runner_image;
}

std::pair<std::string, std::string> BenchmarkReconciler::Admit(const Benchmark& benchmark, FieldErrors errors) const {
  if (errors.empty()) errors = ValidateBenchmark(benchmark);
  const std::string invalid = errors.Joined();
  if (!invalid.empty()) return {kReasonInvalid, invalid};
  const std::string denied = PolicyViolations(benchmark, deps_.policy, RunnerImage()).Joined();
  if (!denied.empty()) return {kReasonPolicyViolation, denied};
  return {};
}

Status BenchmarkReconciler::Reject(const json& object, Benchmark* benchmark, const std::string& reason,
                                   const std::string& message, bool already_failed, const std::string& now) {
  // An edit can make a running Benchmark one that may not run: its workers stop with it.
  RETURN_IF_ERROR(DeletePods(benchmark->metadata.namespace_name, ActivePodNames(OwnedWorkerPods(*benchmark, *deps_.pods))));
  if (already_failed) return Status::Ok();
  benchmark->status = FailedStatus(*benchmark, benchmark->status, reason, message, now);
  RETURN_IF_ERROR(WriteStatus(object, *benchmark, benchmark->status));
  RecordEvent(*benchmark, "Warning", reason, message);
  if (deps_.on_finished) deps_.on_finished(*benchmark);
  return Status::Ok();
}

StatusOr<bool> BenchmarkReconciler::WaitForDataset(const json& object, Benchmark* benchmark,
                                                   const BenchmarkStatus& stored, const std::string& now, bool write) {
  const std::string& ref = benchmark->spec.dataset.ref;
  const std::optional<json> dataset =
      deps_.datasets != nullptr ? deps_.datasets->Get(benchmark->metadata.namespace_name + "/" + ref) : std::nullopt;
  const int64_t generation = benchmark->metadata.generation;
  if (const auto wait = ResolveDatasetRef(&benchmark->spec, dataset)) {
    if (benchmark->status.phase.empty()) benchmark->status.phase = kPhasePending;
    SetCondition(&benchmark->status.conditions, kConditionDatasetReady, false, wait->reason, wait->message, generation, now);
    if (write && EncodeStatus(benchmark->status) != EncodeStatus(stored)) RETURN_IF_ERROR(WriteStatus(object, *benchmark, benchmark->status));
    return true;
  }
  SetCondition(&benchmark->status.conditions, kConditionDatasetReady, true, "DatasetReady",
               "reading Dataset " + ref + " from claim " +
                   benchmark->spec.dataset.volume["persistentVolumeClaim"].value("claimName", ""),
               generation, now);
  return false;
}

std::optional<Progress> BenchmarkReconciler::ProgressOf(const std::string& key, const BenchmarkSpec& spec,
                                                        const BenchmarkStatus& status) const {
  if (deps_.progress == nullptr) return std::nullopt;
  std::optional<Progress> progress = deps_.progress->Get(key, CurrentGang(status));
  if (!progress) return std::nullopt;
  // Of at most how many epochs, toward what target: the spec's, beside rank 0's figures.
  progress->max_epochs = spec.max_epochs;
  if (spec.goal && spec.goal->metric == progress->metric) progress->goal = spec.goal->target;
  return progress;
}

runtime::ReconcileResult BenchmarkReconciler::Reconcile(const std::string& key) {
  // 1. Get. Gone from the cache: deleted, and garbage collection removes the children.
  const std::optional<json> object = deps_.benchmarks->Get(key);
  if (!object) return runtime::Result::Done();
  FieldErrors errors;
  Benchmark benchmark = DecodeBenchmark(*object, &errors);
  // Being deleted: create nothing more, and stop the gang now. Foreground deletion (a sweep
  // replacing an edited point) waits for the children, which would otherwise run on to the
  // end of their run and then wait for the garbage collector's pass.
  if (object->at("metadata").contains("deletionTimestamp")) return StopGang(benchmark);
  const BenchmarkStatus stored = benchmark.status;
  const std::string now = Rfc3339(deps_.time->WallNow());

  // 2. Admit: a spec that is invalid, or that the operator's policy forbids, is terminal until
  //    the user edits it (a new generation); then it starts over.
  const Condition* failed = FindCondition(stored.conditions, kConditionFailed);
  if (failed != nullptr && (failed->reason == kReasonInvalid || failed->reason == kReasonPolicyViolation) &&
      failed->observed_generation < benchmark.metadata.generation) {
    benchmark.status = BenchmarkStatus{};
  }
  const std::string previous_phase = benchmark.status.phase;
  if (benchmark.spec.image.empty()) benchmark.spec.image = RunnerImage();
  ApplyDefaults(&benchmark);
  if (const auto [reason, message] = Admit(benchmark, std::move(errors)); !reason.empty()) {
    RETURN_IF_ERROR(Reject(*object, &benchmark, reason, message, previous_phase == kPhaseFailed, now));
    return runtime::Result::Done();
  }

  // 3. The Dataset it reads, mounted once Ready. Until then it waits, Pending, saying why; a
  //    gang already running keeps its mount and is followed, but gets no new pod.
  std::vector<WorkerPod> pods = OwnedWorkerPods(benchmark, *deps_.pods);
  bool hold_new_pods = false;
  if (!benchmark.spec.dataset.ref.empty() && !IsFinished(previous_phase)) {
    ASSIGN_OR_RETURN(hold_new_pods, WaitForDataset(*object, &benchmark, stored, now, /*write=*/pods.empty()));
    if (hold_new_pods && pods.empty()) return runtime::Result::Done();
  }

  // 4. Plan from the pods this Benchmark owns. A node that stopped reporting took its ranks with
  //    it: the pods the node lifecycle controller marked not Ready have their node read.
  ASSIGN_OR_RETURN(const std::set<std::string> on_lost_nodes, FindLostNodes(&pods));
  ReconcilePlan plan = PlanReconcile(benchmark, pods, deps_.time->WallNow());
  if (hold_new_pods) plan.create_ranks.clear();

  if (plan.delete_benchmark) {
    if (AwaitsItsSweep(*object, benchmark)) return runtime::Result::RequeueAfter(std::chrono::seconds(1));
    return DeleteAfterTtl(key, benchmark);
  }

  // 5. Create what is missing. A failed create is shown in status (AfterCreateFailed).
  if (Status created = CreateMissing(benchmark, plan); !created.ok()) {
    benchmark.status = stored;
    return AfterCreateFailed(*object, benchmark, plan.status, created);
  }

  // 6. Progress of this gang's rank 0, as the poller last read it.
  if (plan.status.phase == kPhaseRunning) {
    if (std::optional<Progress> progress = ProgressOf(key, benchmark.spec, plan.status)) plan.status.progress = progress;
  }

  // 7. A finishing run's system and cost (its nodes, the catalog); then results that outlive the
  //    pods, before the status that lets them go: a failed write comes back here (unfinished).
  const bool finishes = !IsFinished(previous_phase) && IsFinished(plan.status.phase);
  if (finishes && plan.status.results) RETURN_IF_ERROR(DescribeAndPrice(benchmark, &*plan.status.results));
  if (finishes) RETURN_IF_ERROR(JudgeBaseline(benchmark, &plan));
  Benchmark finished = benchmark;
  finished.status = plan.status;
  if (finishes) RETURN_IF_ERROR(KeepResults(key, finished, pods));

  // 8. Status, only when it changed, and only through /status.
  if (EncodeStatus(plan.status) != EncodeStatus(stored)) {
    RETURN_IF_ERROR(WriteStatus(*object, benchmark, plan.status));
  }

  // 9. Deletions after the status holds the results the pods' termination messages gave.
  RETURN_IF_ERROR(DeletePods(benchmark.metadata.namespace_name, plan.delete_pods, on_lost_nodes));
  for (const PlannedEvent& event : plan.events) RecordEvent(benchmark, event.type, event.reason, event.message);
  if (finishes) OnFinished(key, finished);
  return runtime::Result::RequeueAfter(plan.requeue_after);
}

}  // namespace ergobench::controller

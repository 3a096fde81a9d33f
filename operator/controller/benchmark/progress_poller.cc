#include "operator/controller/benchmark/progress_poller.h"

#include <cmath>
#include <set>

#include "api/v1alpha1/benchmark_codec.h"
#include "api/v1alpha1/benchmark_phase.h"
#include "api/v1alpha1/defaults.h"
#include "kube/runtime/log.h"
#include "operator/controller/benchmark/builders.h"
#include "operator/controller/benchmark/worker_pods.h"

namespace ergobench::controller {
namespace {

bool SameProgress(const Progress& a, const Progress& b) {
  return a.epoch == b.epoch && a.step == b.step && a.metric == b.metric && a.value == b.value &&
         a.communication_ratio == b.communication_ratio;
}

bool IsRunning(const nlohmann::json& benchmark) {
  return benchmark.value("status", nlohmann::json::object()).value("phase", "") == kPhaseRunning;
}

// Takes the files rank 0 offers, once per gang, then lets it exit. True when they were taken
// in this round. Until they are taken, rank 0 waits (--artifact-linger), and the next round
// tries again.
bool TakeArtifacts(const ProgressTarget& target, RankZeroClient& client, ArtifactCache& artifacts) {
  bool taken = false;
  if (!artifacts.Has(target.key, target.gang)) {
    StatusOr<ArtifactBundle> bundle = client.FetchArtifacts(target.pod_ip, kMetricsPort, target.uid);
    if (!bundle.ok()) {
      runtime::Log(runtime::LogLevel::kWarning, "cannot take rank 0's files; trying again next round",
                   {{"benchmark", target.key}, {"error", bundle.status().ToString()}});
      return false;
    }
    artifacts.Put(target.key, target.gang, std::move(bundle).value());
    taken = true;
  }
  if (Status released = client.ReleaseArtifacts(target.pod_ip, kMetricsPort, target.uid); !released.ok()) {
    runtime::Log(runtime::LogLevel::kWarning, "cannot release rank 0; it exits when its linger time is up",
                 {{"benchmark", target.key}, {"error", released.ToString()}});
  }
  return taken;
}

}  // namespace

std::optional<Progress> ProgressCache::Get(const std::string& key, const Gang& gang) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = entries_.find(key);
  if (it == entries_.end() || it->second.gang != gang) return std::nullopt;
  return it->second.progress;
}

bool ProgressCache::Put(const std::string& key, const Gang& gang, Progress progress,
                        const std::optional<StepTimeTotals>& totals) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = entries_.find(key);
  const bool same_gang = it != entries_.end() && it->second.gang == gang;
  if (same_gang) {
    const Entry& last = it->second;
    std::optional<double> recent;
    if (last.totals && totals) recent = RecentCommunicationRatio(*last.totals, *totals);
    // Thousandths: the status is written when it changes, and finer is noise at a poll's length.
    progress.communication_ratio = recent ? std::optional(std::round(*recent * 1000) / 1000) : last.progress.communication_ratio;
    if (SameProgress(last.progress, progress)) return false;
  }
  entries_[key] = Entry{gang, progress, totals};
  return true;
}

void ProgressCache::Retain(const std::vector<std::string>& live) {
  const std::set<std::string> keep(live.begin(), live.end());
  std::lock_guard<std::mutex> lock(mutex_);
  std::erase_if(entries_, [&keep](const auto& entry) { return !keep.contains(entry.first); });
}

void ArtifactCache::Put(const std::string& key, const Gang& gang, ArtifactBundle bundle) {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_[key] = Entry{gang, std::move(bundle)};
}

std::optional<ArtifactBundle> ArtifactCache::Get(const std::string& key, const Gang& gang) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = entries_.find(key);
  if (it == entries_.end() || it->second.gang != gang) return std::nullopt;
  return it->second.bundle;
}

bool ArtifactCache::Has(const std::string& key, const Gang& gang) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = entries_.find(key);
  return it != entries_.end() && it->second.gang == gang;
}

void ArtifactCache::Forget(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.erase(key);
}

void ArtifactCache::Retain(const std::vector<std::string>& live) {
  const std::set<std::string> keep(live.begin(), live.end());
  std::lock_guard<std::mutex> lock(mutex_);
  std::erase_if(entries_, [&keep](const auto& entry) { return !keep.contains(entry.first); });
}

std::vector<std::string> RunningKeys(const runtime::Store& benchmarks) {
  std::vector<std::string> keys;
  for (const nlohmann::json& object : benchmarks.List(IsRunning)) keys.push_back(runtime::ObjectKey(object));
  return keys;
}

std::vector<ProgressTarget> ProgressTargets(const runtime::Store& benchmarks, const runtime::Store& pods) {
  std::vector<ProgressTarget> targets;
  for (const nlohmann::json& object : benchmarks.List(IsRunning)) {
    FieldErrors ignored;  // the reconciler reports a bad Benchmark; here it just has no progress
    Benchmark benchmark = DecodeBenchmark(object, &ignored);
    ApplyDefaults(&benchmark);
    const Gang gang = CurrentGang(benchmark.status);
    for (const WorkerPod& pod : OwnedWorkerPods(benchmark, pods)) {
      if (pod.rank != 0 || !InGang(pod, gang) || pod.pod_ip.empty()) continue;
      targets.push_back({runtime::ObjectKey(object), gang, pod.pod_ip,
                         benchmark.spec.goal ? benchmark.spec.goal->metric : "", benchmark.metadata.uid});
    }
  }
  return targets;
}

std::vector<std::string> PollRankZeroOnce(const std::vector<ProgressTarget>& targets, RankZeroClient& client,
                                          RankZeroCaches caches) {
  std::vector<std::string> moved;
  std::vector<std::string> live;
  for (const ProgressTarget& target : targets) {
    live.push_back(target.key);
    const std::optional<RankZeroState> state = client.Read(target.pod_ip, kMetricsPort, target.goal_metric);
    if (!state) continue;
    bool changed = state->progress && caches.progress->Put(target.key, target.gang, *state->progress, state->totals);
    if (state->artifacts_offered && TakeArtifacts(target, client, *caches.artifacts)) changed = true;
    if (changed) moved.push_back(target.key);
  }
  caches.progress->Retain(live);
  return moved;
}

void PollRankZero(runtime::StopFlag& stop, const runtime::Store& benchmarks, const runtime::Store& pods,
                  RankZeroClient& client, RankZeroCaches caches,
                  const std::function<void(const std::string&)>& enqueue, std::chrono::seconds interval) {
  while (!stop.stopped()) {
    for (const std::string& key : PollRankZeroOnce(ProgressTargets(benchmarks, pods), client, caches)) enqueue(key);
    // A Benchmark stays Running until the reconcile that keeps its files: only then may they go.
    caches.artifacts->Retain(RunningKeys(benchmarks));
    stop.Sleep(interval);
  }
}

}  // namespace ergobench::controller

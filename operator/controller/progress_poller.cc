#include "operator/controller/progress_poller.h"

#include <set>

#include "api/benchmark_codec.h"
#include "api/benchmark_phase.h"
#include "api/defaults.h"
#include "operator/controller/builders.h"
#include "operator/controller/worker_pods.h"

namespace ergobench::controller {
namespace {

bool SameProgress(const Progress& a, const Progress& b) {
  return a.epoch == b.epoch && a.step == b.step && a.metric == b.metric && a.value == b.value;
}

}  // namespace

std::optional<Progress> ProgressCache::Get(const std::string& key, const Gang& gang) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = entries_.find(key);
  if (it == entries_.end() || it->second.gang != gang) return std::nullopt;
  return it->second.progress;
}

bool ProgressCache::Put(const std::string& key, const Gang& gang, const Progress& progress) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = entries_.find(key);
  if (it != entries_.end() && it->second.gang == gang && SameProgress(it->second.progress, progress)) return false;
  entries_[key] = Entry{gang, progress};
  return true;
}

void ProgressCache::Retain(const std::vector<std::string>& live) {
  const std::set<std::string> keep(live.begin(), live.end());
  std::lock_guard<std::mutex> lock(mutex_);
  std::erase_if(entries_, [&keep](const auto& entry) { return !keep.contains(entry.first); });
}

std::vector<ProgressTarget> ProgressTargets(const runtime::Store& benchmarks, const runtime::Store& pods) {
  std::vector<ProgressTarget> targets;
  for (const nlohmann::json& object : benchmarks.List([](const nlohmann::json& b) {
         return b.value("status", nlohmann::json::object()).value("phase", "") == kPhaseRunning;
       })) {
    FieldErrors ignored;  // the reconciler reports a bad Benchmark; here it just has no progress
    Benchmark benchmark = DecodeBenchmark(object, &ignored);
    ApplyDefaults(&benchmark);
    const Gang gang = CurrentGang(benchmark.status);
    for (const WorkerPod& pod : OwnedWorkerPods(benchmark, pods)) {
      if (pod.rank != 0 || !InGang(pod, gang) || pod.pod_ip.empty()) continue;
      targets.push_back({runtime::ObjectKey(object), gang, pod.pod_ip,
                         benchmark.spec.goal ? benchmark.spec.goal->metric : ""});
    }
  }
  return targets;
}

std::vector<std::string> PollProgressOnce(const std::vector<ProgressTarget>& targets, ProgressReader& reader,
                                          ProgressCache& cache) {
  std::vector<std::string> moved;
  std::vector<std::string> live;
  for (const ProgressTarget& target : targets) {
    live.push_back(target.key);
    const std::optional<Progress> progress = reader.Read(target.pod_ip, kMetricsPort, target.goal_metric);
    if (progress && cache.Put(target.key, target.gang, *progress)) moved.push_back(target.key);
  }
  cache.Retain(live);
  return moved;
}

void PollProgress(runtime::StopFlag& stop, const runtime::Store& benchmarks, const runtime::Store& pods,
                  ProgressReader& reader, ProgressCache& cache, const std::function<void(const std::string&)>& enqueue,
                  std::chrono::seconds interval) {
  while (!stop.stopped()) {
    for (const std::string& key : PollProgressOnce(ProgressTargets(benchmarks, pods), reader, cache)) enqueue(key);
    stop.Sleep(interval);
  }
}

}  // namespace ergobench::controller

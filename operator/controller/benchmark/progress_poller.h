// Rank 0 of each running Benchmark, read by one poller thread, so that no reconcile waits on a
// pod's HTTP server: its progress from /metrics into a ProgressCache, and, once its run has
// ended, its output files into an ArtifactCache, after which the poller lets it exit. The
// reconciler reads both; the poller queues a Benchmark whose progress moved or whose files
// it took.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "api/v1alpha1/benchmark.h"
#include "kube/runtime/stop_flag.h"
#include "kube/runtime/store.h"
#include "operator/controller/benchmark/builders.h"
#include "operator/controller/benchmark/progress.h"

namespace ergobench::controller {

// How often rank 0 of each running Benchmark is read, by default (--progress-interval).
inline constexpr std::chrono::seconds kProgressInterval{10};

class ProgressCache {
 public:
  // The progress of rank 0 of gang `gang`: a restarted gang never shows an earlier gang's.
  std::optional<Progress> Get(const std::string& key, const Gang& gang) const;
  // True when `progress` differs from what was stored for this key and gang. With rank 0's
  // step time `totals`, the progress gets the communication ratio of the steps since the last
  // Put of the same gang (the last one's, when no step came since).
  bool Put(const std::string& key, const Gang& gang, Progress progress,
           const std::optional<StepTimeTotals>& totals = std::nullopt);
  // Drops the keys not in `live` (Benchmarks that finished or were deleted).
  void Retain(const std::vector<std::string>& live);

 private:
  struct Entry {
    Gang gang;
    Progress progress;
    std::optional<StepTimeTotals> totals;
  };
  mutable std::mutex mutex_;
  std::map<std::string, Entry> entries_;
};

// Rank 0's files of a gang, from the poll that took them to the reconcile that keeps them in
// the results ConfigMap. In memory: an operator restart in between loses them, and the
// results ConfigMap says so.
class ArtifactCache {
 public:
  void Put(const std::string& key, const Gang& gang, ArtifactBundle bundle);
  std::optional<ArtifactBundle> Get(const std::string& key, const Gang& gang) const;
  bool Has(const std::string& key, const Gang& gang) const;
  void Forget(const std::string& key);
  // Drops the keys not in `live` (Benchmarks that finished or were deleted).
  void Retain(const std::vector<std::string>& live);

 private:
  struct Entry {
    Gang gang;
    ArtifactBundle bundle;
  };
  mutable std::mutex mutex_;
  std::map<std::string, Entry> entries_;
};

// Rank 0 of a running Benchmark's current gang, where its metrics are served.
struct ProgressTarget {
  std::string key;  // "namespace/name"
  Gang gang;
  std::string pod_ip;
  std::string goal_metric;  // what Progress::value reports; empty for throughput-only runs
  std::string uid{};        // the Benchmark's: its artifact token is derived from it
};

// The targets of the Running Benchmarks in the caches whose rank 0 has an address.
std::vector<ProgressTarget> ProgressTargets(const runtime::Store& benchmarks, const runtime::Store& pods);

// The keys of the Running Benchmarks in the cache.
std::vector<std::string> RunningKeys(const runtime::Store& benchmarks);

struct RankZeroCaches {
  ProgressCache* progress;
  ArtifactCache* artifacts;
};

// One round: reads each target and stores what it answered; takes the files a target offers
// and then releases it. Returns the keys whose progress moved or whose files were taken.
std::vector<std::string> PollRankZeroOnce(const std::vector<ProgressTarget>& targets, RankZeroClient& client,
                                          RankZeroCaches caches);

// Rounds every `interval` until the stop, handing each moved key to `enqueue`.
void PollRankZero(runtime::StopFlag& stop, const runtime::Store& benchmarks, const runtime::Store& pods,
                  RankZeroClient& client, RankZeroCaches caches,
                  const std::function<void(const std::string&)>& enqueue, std::chrono::seconds interval);

}  // namespace ergobench::controller

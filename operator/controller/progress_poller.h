// Progress of running Benchmarks, scraped from rank 0's /metrics by one poller thread and kept
// in a ProgressCache, so that no reconcile waits on a pod's HTTP server: the reconciler reads
// the last value, and the poller queues a Benchmark whose progress moved.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "api/benchmark.h"
#include "operator/controller/builders.h"
#include "operator/controller/progress.h"
#include "operator/runtime/stop_flag.h"
#include "operator/runtime/store.h"

namespace ergobench::controller {

// How often rank 0 of each running Benchmark is read, by default (--progress-interval).
inline constexpr std::chrono::seconds kProgressInterval{10};

class ProgressCache {
 public:
  // The progress of rank 0 of gang `gang`: a restarted gang never shows an earlier gang's.
  std::optional<Progress> Get(const std::string& key, const Gang& gang) const;
  // True when `progress` differs from what was stored for this key and gang.
  bool Put(const std::string& key, const Gang& gang, const Progress& progress);
  // Drops the keys not in `live` (Benchmarks that finished or were deleted).
  void Retain(const std::vector<std::string>& live);

 private:
  struct Entry {
    Gang gang;
    Progress progress;
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
};

// The targets of the Running Benchmarks in the caches whose rank 0 has an address.
std::vector<ProgressTarget> ProgressTargets(const runtime::Store& benchmarks, const runtime::Store& pods);

// One round: reads each target and stores what it answered. Returns the keys whose progress moved.
std::vector<std::string> PollProgressOnce(const std::vector<ProgressTarget>& targets, ProgressReader& reader,
                                          ProgressCache& cache);

// Rounds every `interval` until the stop, handing each moved key to `enqueue`.
void PollProgress(runtime::StopFlag& stop, const runtime::Store& benchmarks, const runtime::Store& pods,
                  ProgressReader& reader, ProgressCache& cache, const std::function<void(const std::string&)>& enqueue,
                  std::chrono::seconds interval);

}  // namespace ergobench::controller

// The BenchmarkSweep reconciler, read top to bottom like the Dataset's: get the sweep and its
// child Benchmarks from the caches; expand and validate it; plan (sweep_plan.h, pure); delete
// the stale children and create the next ones; write the status. A child's change queues its
// sweep through the cache of children (indexed by SweepOwnerKey); deleting a sweep deletes its
// children by garbage collection (they are owned).
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "base/status.h"
#include "kube/client/client.h"
#include "kube/runtime/reconcile_result.h"
#include "kube/runtime/store.h"

namespace ergobench::controller {

struct SweepReconcilerDeps {
  kube::KubeClient* client = nullptr;
  runtime::Store* sweeps = nullptr;
  runtime::Store* children = nullptr;  // Benchmarks with the sweep label, indexed by SweepOwnerKey
  const TimeSource* time = &SteadyTime();  // wall time: status timestamps, TTLs, price ages
  std::function<void(const std::string& ns, nlohmann::json event)> record_event;
};

class SweepReconciler {
 public:
  explicit SweepReconciler(SweepReconcilerDeps deps) : deps_(std::move(deps)) {}

  // `key` is "namespace/name".
  runtime::ReconcileResult Reconcile(const std::string& key);

 private:
  Status WriteStatus(const nlohmann::json& object, const nlohmann::json& status);

  SweepReconcilerDeps deps_;
};

// "namespace/name" of the sweep a child Benchmark belongs to, by its label; "" for none.
std::string SweepOwnerKey(const nlohmann::json& object);

}  // namespace ergobench::controller

// The Dataset reconciler, read top to bottom like the Benchmark's: get the Dataset, its
// staging Job and that Job's pods from the caches; validate; plan (dataset_plan.h, pure);
// create the claim and the Job; write the status; delete the Job once it is done with.
// Benchmarks that read the Dataset are queued by the Benchmark controller's route from the
// Dataset cache (benchmark/dataset_ref.h) when its status moves.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "base/status.h"
#include "kube/client/client.h"
#include "kube/runtime/reconcile_result.h"
#include "kube/runtime/store.h"

namespace ergobench::controller {

struct DatasetReconcilerDeps {
  kube::KubeClient* client = nullptr;
  runtime::Store* datasets = nullptr;
  runtime::Store* jobs = nullptr;          // staging Jobs, indexed by their Dataset's key
  runtime::Store* staging_pods = nullptr;  // their pods, indexed the same way
  const TimeSource* time = &SteadyTime();  // wall time: status timestamps, TTLs, price ages
  std::string image;  // the runner image, which holds ergobench-stage
  std::function<void(const std::string& ns, nlohmann::json event)> record_event;
  // Internal networks the staging may still fetch from (PodPolicy::dataset_allowed_networks).
  std::vector<std::string> allowed_networks;
};

class DatasetReconciler {
 public:
  explicit DatasetReconciler(DatasetReconcilerDeps deps) : deps_(std::move(deps)) {}

  // `key` is "namespace/name".
  runtime::ReconcileResult Reconcile(const std::string& key);

 private:
  Status WriteStatus(const nlohmann::json& object, const nlohmann::json& status);

  DatasetReconcilerDeps deps_;
};

// "namespace/name" of the Dataset a staging Job or pod belongs to, by its label; "" for none.
std::string StagingOwnerKey(const nlohmann::json& object);

}  // namespace ergobench::controller

// What a communication backend adds to the objects a Benchmark owns, in the manner of Kubeflow
// trainer v2's runtime plugins (one per ML policy): the builders, the plan and the reconciler ask
// the Benchmark's plugin and name no backend. backend_plugins.cc is the one place that does.
//
// gloo and nccl need nothing beyond builders.h: k worker pods that meet at rank 0's rendezvous.
// MPI (mpi/mpi_backend.h) adds a launcher pod, a hostfile and an ssh Secret.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "api/v1alpha1/benchmark.h"
#include "base/status.h"
#include "operator/controller/benchmark/builders.h"
#include "operator/controller/benchmark/mpi/ssh_keys.h"

namespace ergobench::controller {

class BackendPlugin {
 public:
  virtual ~BackendPlugin() = default;

  // Entries the backend adds to the ConfigMap beside benchmark.json.
  virtual void AddConfigData(const Benchmark& /*benchmark*/, nlohmann::json* /*data*/) const {}
  // A worker pod as BuildWorkerPod makes it, changed for this backend.
  virtual void MakeWorker(const Benchmark& /*benchmark*/, nlohmann::json* /*pod*/) const {}

  // Whether one more pod, created once every worker has a node, starts the ranks (mpirun). Such
  // a gang's start is bounded by the launcher, not by rank 0's rendezvous.
  virtual bool HasLauncher() const { return false; }
  virtual std::string LauncherPodName(const Benchmark& /*benchmark*/) const { return ""; }
  virtual nlohmann::json BuildLauncherPod(const Benchmark& /*benchmark*/, const Gang& /*gang*/) const {
    return nullptr;
  }

  // The Secret the gang needs, with keys made now by `keys`; nullopt when it needs none. Not
  // pure, unlike the rest: the reconciler calls it once, when it creates the gang's objects.
  virtual StatusOr<std::optional<nlohmann::json>> BuildSecret(const Benchmark& /*benchmark*/,
                                                              const SshKeyGenerator& /*keys*/) const {
    return std::optional<nlohmann::json>();
  }
};

// The plugin of spec.backend (defaulted): gloo's, which adds nothing, for every backend without
// one of its own.
const BackendPlugin& BackendOf(const Benchmark& benchmark);

}  // namespace ergobench::controller

// spec.backend "mpi" as a BackendPlugin (backend_plugin.h): the objects of mpi_builders.h.
#pragma once

#include "operator/controller/benchmark/backend_plugin.h"

namespace ergobench::controller {

class MpiBackend final : public BackendPlugin {
 public:
  void AddConfigData(const Benchmark& benchmark, nlohmann::json* data) const override;
  void MakeWorker(const Benchmark& benchmark, nlohmann::json* pod) const override;
  bool HasLauncher() const override { return true; }
  std::string LauncherPodName(const Benchmark& benchmark) const override;
  nlohmann::json BuildLauncherPod(const Benchmark& benchmark, const Gang& gang) const override;
  StatusOr<std::optional<nlohmann::json>> BuildSecret(const Benchmark& benchmark,
                                                      const SshKeyGenerator& keys) const override;
};

}  // namespace ergobench::controller

#include "operator/controller/benchmark/mpi/mpi_backend.h"

#include "operator/controller/benchmark/mpi/mpi_builders.h"

namespace ergobench::controller {

using nlohmann::json;

void MpiBackend::AddConfigData(const Benchmark& benchmark, json* data) const { data->update(MpiConfigData(benchmark)); }

void MpiBackend::MakeWorker(const Benchmark& benchmark, json* pod) const { MakeMpiWorker(benchmark, pod); }

std::string MpiBackend::LauncherPodName(const Benchmark& benchmark) const {
  return controller::LauncherPodName(benchmark);
}

json MpiBackend::BuildLauncherPod(const Benchmark& benchmark, const Gang& gang) const {
  return controller::BuildLauncherPod(benchmark, gang);
}

StatusOr<std::optional<json>> MpiBackend::BuildSecret(const Benchmark& benchmark, const SshKeyGenerator& keys) const {
  // Made here and sent once: the keys are in no log, Event or status, and in no other object.
  const std::string owner = benchmark.metadata.namespace_name + "/" + benchmark.metadata.name;
  auto user_key = keys("ergobench launcher of " + owner);
  if (!user_key.ok()) return user_key.status().WithContext("make the ssh key of the launcher");
  auto host_key = keys("ergobench workers of " + owner);
  if (!host_key.ok()) return host_key.status().WithContext("make the ssh host key of the workers");
  return std::optional<json>(BuildSshSecret(benchmark, *user_key, *host_key));
}

}  // namespace ergobench::controller

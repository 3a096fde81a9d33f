#include "runner/environment.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include <torch/csrc/api/include/torch/version.h>
#if ERGOBENCH_HAS_GLOO
#include <gloo/config.h>
#endif

#include "api/contract/runner_invocation.h"
#include "runner/dist/mpi_communicator.h"

namespace ergobench {

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  utsname u{};
  uname(&u);
  return u.machine;
}

nlohmann::json DescribeEnvironment(const EnvironmentFacts& facts) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  utsname u{};
  uname(&u);
  nlohmann::json env = {
      {"host", host},
      {"kernel", std::string(u.sysname) + " " + u.release},
      {"arch", u.machine},
      {"cpuModel", CpuModel()},
      {"cpus", facts.budget.affinity_cpus},
      {"threads", facts.threads},
      {"backend", facts.backend},
      {"ergobenchVersion", ERGOBENCH_VERSION},
      {"torchVersion", TORCH_VERSION},
      {"mpiVersion", MpiLibraryVersion()},
      {"compiler", std::string("gcc ") + __VERSION__},
      {"seed", facts.seed},
  };
#if ERGOBENCH_HAS_GLOO
  env["glooVersion"] = std::to_string(GLOO_VERSION_MAJOR) + "." + std::to_string(GLOO_VERSION_MINOR) + "." +
                       std::to_string(GLOO_VERSION_PATCH);
#endif
  if (facts.budget.quota_cpus) env["cpuQuota"] = *facts.budget.quota_cpus;
  // In a pod, the host name is the pod's: the node comes from the downward API.
  if (const char* node = std::getenv(kNodeNameEnv); node != nullptr && *node != '\0') env["node"] = node;
  return env;
}

}  // namespace ergobench

// The environment fingerprint every result carries (docs/architecture.md, "Measurement rules"): host,
// kernel, CPU model and count, CPU quota, threads, library versions, seed; and in a pod, its node.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "runner/cpu_budget.h"

namespace ergobench {

struct EnvironmentFacts {
  CpuBudget budget;
  int threads = 1;
  std::string backend;
  int64_t seed = 0;
};

nlohmann::json DescribeEnvironment(const EnvironmentFacts& facts);

// The "model name" of /proc/cpuinfo, or the architecture when there is none.
std::string CpuModel();

}  // namespace ergobench

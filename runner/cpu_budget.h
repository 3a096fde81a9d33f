// How many CPUs this process may really use: the smaller of its affinity mask and its
// cgroup CPU quota (v2 cpu.max along the process's cgroup path, or v1 cfs_quota_us).
// Torch threads are set from it, since oversubscribing a quota halves throughput.
#pragma once

#include <optional>
#include <string>

namespace ergobench {

struct CpuBudget {
  int affinity_cpus = 1;
  std::optional<double> quota_cpus;  // absent: no quota

  // CPUs usable at once, at least 1: the quota rounded down, capped by affinity.
  int Usable() const;
};

// `root` prefixes every path read ("" for the real system), so tests can use a fake tree.
CpuBudget ReadCpuBudget(const std::string& root = "");

// Threads for one of `ranks` ranks sharing this budget: at least 1.
int ThreadsPerRank(const CpuBudget& budget, int ranks);

}  // namespace ergobench

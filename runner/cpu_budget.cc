#include "runner/cpu_budget.h"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace ergobench {
namespace {

std::optional<std::string> ReadFirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  return line;
}

// cgroup v2: "max 100000" (no quota) or "150000 100000" (1.5 CPUs).
std::optional<double> ParseCpuMax(const std::string& line) {
  std::istringstream in(line);
  std::string quota;
  double period = 0;
  if (!(in >> quota >> period) || quota == "max" || period <= 0) return std::nullopt;
  return std::stod(quota) / period;
}

std::optional<double> MinQuota(std::optional<double> a, std::optional<double> b) {
  if (!a) return b;
  if (!b) return a;
  return std::min(*a, *b);
}

std::optional<double> ReadV2Quota(const std::string& root) {
  // "0::/kubepods/pod123/abc": our cgroup; every ancestor's cpu.max limits us too.
  std::ifstream in(root + "/proc/self/cgroup");
  std::string line;
  std::string path;
  while (std::getline(in, line)) {
    if (line.rfind("0::", 0) == 0) path = line.substr(3);
  }
  std::optional<double> quota;
  while (true) {
    if (auto cpu_max = ReadFirstLine(root + "/sys/fs/cgroup" + path + "/cpu.max")) {
      quota = MinQuota(quota, ParseCpuMax(*cpu_max));
    }
    if (path.empty() || path == "/") break;
    path = path.substr(0, path.find_last_of('/'));
  }
  return quota;
}

std::optional<double> ReadV1Quota(const std::string& root) {
  for (const char* dir : {"/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpu"}) {
    auto quota = ReadFirstLine(root + dir + "/cpu.cfs_quota_us");
    auto period = ReadFirstLine(root + dir + "/cpu.cfs_period_us");
    if (!quota || !period) continue;
    const double q = std::stod(*quota);
    const double p = std::stod(*period);
    if (q > 0 && p > 0) return q / p;
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

int CpuBudget::Usable() const {
  int usable = std::max(1, affinity_cpus);
  if (quota_cpus) usable = std::min(usable, std::max(1, static_cast<int>(std::floor(*quota_cpus + 1e-9))));
  return usable;
}

CpuBudget ReadCpuBudget(const std::string& root) {
  CpuBudget budget;
  cpu_set_t set;
  CPU_ZERO(&set);
  budget.affinity_cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
  budget.quota_cpus = ReadV2Quota(root);
  if (!budget.quota_cpus) budget.quota_cpus = ReadV1Quota(root);
  return budget;
}

int ThreadsPerRank(const CpuBudget& budget, int ranks) { return std::max(1, budget.Usable() / std::max(1, ranks)); }

}  // namespace ergobench

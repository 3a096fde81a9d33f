#include "runner/cpu_peak.h"

#include <cstdio>
#include <set>
#include <sstream>

namespace ergobench {

std::optional<CpuPeak> EstimateCpuPeak(const std::string& cpuinfo, int cores) {
  std::istringstream lines(cpuinfo);
  std::string line;
  double mhz = 0;
  std::set<std::string> flags;
  // The first processor's entry speaks for all: ranks are not placed on mixed cores.
  while (std::getline(lines, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    key.erase(key.find_last_not_of(" \t") + 1);
    const std::string value = line.substr(colon + 1);
    if (key == "cpu MHz" && mhz == 0) {
      mhz = std::strtod(value.c_str(), nullptr);
    } else if (key == "flags" && flags.empty()) {
      std::istringstream words(value);
      for (std::string flag; words >> flag;) flags.insert(flag);
    }
  }
  if (mhz <= 0 || flags.empty() || cores <= 0) return std::nullopt;
  CpuPeak peak;
  std::string isa;
  if (flags.count("avx512f")) {
    peak.flops_per_cycle = 64, isa = "avx512f";
  } else if (flags.count("avx2") && flags.count("fma")) {
    peak.flops_per_cycle = 32, isa = "avx2+fma";
  } else if (flags.count("avx")) {
    peak.flops_per_cycle = 16, isa = "avx";
  } else {
    peak.flops_per_cycle = 8, isa = "sse2";
  }
  peak.ghz = mhz / 1000;
  peak.tflops = cores * peak.ghz * peak.flops_per_cycle / 1000;
  char basis[128];
  std::snprintf(basis, sizeof basis, "%d cores x %.2f GHz x %.0f FLOP/cycle (%s)", cores, peak.ghz, peak.flops_per_cycle,
                isa.c_str());
  peak.basis = basis;
  return peak;
}

}  // namespace ergobench

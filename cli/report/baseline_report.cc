#include "cli/report/baseline_report.h"

#include <algorithm>
#include <cstdio>

#include "api/analysis/regression.h"
#include "api/v1alpha1/benchmark_phase.h"

namespace ergobench {
namespace {

const Benchmark* FindByName(const std::vector<Benchmark>& runs, const std::string& name) {
  const auto it = std::find_if(runs.begin(), runs.end(), [&](const Benchmark& b) { return b.metadata.name == name; });
  return it == runs.end() ? nullptr : &*it;
}

bool Judgeable(const Benchmark& b) { return b.status.phase == kPhaseSucceeded && b.status.results.has_value(); }

}  // namespace

std::vector<BaselineComparison> CompareWithBaselineRuns(const std::vector<Benchmark>& runs,
                                                        const std::vector<Benchmark>& baselines,
                                                        const std::map<std::string, double>& overrides) {
  std::vector<BaselineComparison> out;
  for (const Benchmark& run : runs) {
    BaselineComparison c;
    c.run = run.metadata.name;
    const Benchmark* baseline = FindByName(baselines, run.metadata.name);
    if (!Judgeable(run)) {
      c.missing = "the run did not succeed (phase " + (run.status.phase.empty() ? "unknown" : run.status.phase) + ")";
    } else if (baseline == nullptr) {
      c.missing = "no baseline run of this name";
    } else if (!Judgeable(*baseline)) {
      c.missing = "the baseline run did not succeed (phase " + baseline->status.phase + ")";
    } else {
      c.baseline = baseline->metadata.name;
      std::map<std::string, double> bands = run.spec.baseline ? run.spec.baseline->tolerances : std::map<std::string, double>{};
      for (const auto& [figure, band] : overrides) bands[figure] = band;
      c.verdicts = CompareWithBaseline(*baseline->status.results, *run.status.results, bands);
    }
    out.push_back(c);
  }
  return out;
}

std::string FormatBaselineComparisons(const std::vector<BaselineComparison>& comparisons, const std::string& where) {
  size_t width = 4;
  for (const BaselineComparison& c : comparisons) width = std::max(width, c.run.size());
  std::string out = "Against the baseline in " + where + ":\n";
  for (const BaselineComparison& c : comparisons) {
    const bool regressed = AnyRegressed(c.verdicts);
    const std::string verdict = !c.missing.empty() ? "-" : regressed ? "REGRESSED" : "ok";
    const std::string said = !c.missing.empty() ? c.missing : DescribeVerdicts(c.verdicts);
    char line[512];
    std::snprintf(line, sizeof line, "  %-*s  %-9s  ", static_cast<int>(width), c.run.c_str(), verdict.c_str());
    out += line + said + "\n";
  }
  return out;
}

}  // namespace ergobench

// A BenchmarkSweep file end to end: YAML, the codec, the matrix counted and expanded over the
// template, every point validated, the status aggregated. The audit's crashes lived here (a
// division by no workers, a template of the wrong shape, a matrix built whole); what expands
// must be at most kMaxSweepPoints valid points, and its spec must survive a round trip.
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string_view>

#include "api/analysis/sweep_status.h"
#include "api/v1alpha1/load.h"
#include "api/v1alpha1/sweep.h"
#include "api/v1alpha1/validation.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto loaded = ergobench::LoadDocuments(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  if (!loaded.ok()) return 0;
  for (const ergobench::LoadedSweep& sweep : loaded->sweeps) {
    if (sweep.points.size() > static_cast<size_t>(ergobench::kMaxSweepPoints)) std::abort();
    for (const ergobench::SweepPoint& point : sweep.points) {
      if (!ergobench::ValidateBenchmark(point.benchmark).empty()) std::abort();
    }
    ergobench::FieldErrors errors;
    const ergobench::BenchmarkSweep decoded = ergobench::DecodeSweep(
        {{"apiVersion", sweep.sweep.api_version}, {"kind", sweep.sweep.kind}, {"metadata", {{"name", sweep.sweep.metadata.name}}},
         {"spec", ergobench::EncodeSweepSpec(sweep.sweep.spec)}},
        &errors);
    if (!errors.empty() || ergobench::EncodeSweepSpec(decoded.spec) != ergobench::EncodeSweepSpec(sweep.sweep.spec)) {
      std::abort();
    }
    ergobench::BenchmarkSweepStatus status;
    ergobench::TallyPoints(ergobench::AggregatePoints(sweep.points, {}), sweep.sweep.spec, &status);
    if (status.total != static_cast<int64_t>(sweep.points.size())) std::abort();
  }
  return 0;
}

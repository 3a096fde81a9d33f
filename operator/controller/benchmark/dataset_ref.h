// A Benchmark's spec.dataset.ref, resolved against the Dataset it names: once that is Ready,
// the workers mount its claim read-only (spec.dataset.volume) and read spec.dataset.path inside
// the Dataset's own folder; until then the Benchmark waits, Pending, and says why.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/v1alpha1/benchmark.h"
#include "kube/runtime/store.h"

namespace ergobench::controller {

inline constexpr char kConditionDatasetReady[] = "DatasetReady";

struct DatasetWait {
  std::string reason;  // DatasetNotFound | DatasetNotReady | DatasetFailed
  std::string message;
};

// `dataset` is the cache's copy of the Dataset spec.dataset.ref names, or absent. On Ready,
// rewrites `spec` to read its claim and returns nothing.
std::optional<DatasetWait> ResolveDatasetRef(BenchmarkSpec* spec, const std::optional<nlohmann::json>& dataset);

// The keys of the Benchmarks in `benchmarks` whose spec.dataset.ref names the Dataset `key`:
// the Benchmark controller's route from the Dataset cache.
std::vector<std::string> BenchmarksReading(const runtime::Store& benchmarks, const std::string& key);

}  // namespace ergobench::controller

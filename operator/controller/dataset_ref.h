// A Benchmark's spec.dataset.ref, resolved against the Dataset it names: once that is Ready,
// the workers mount its claim read-only (spec.dataset.volume) and read spec.dataset.path inside
// the Dataset's own folder; until then the Benchmark waits, Pending, and says why.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "api/benchmark.h"

namespace ergobench::controller {

inline constexpr char kConditionDatasetReady[] = "DatasetReady";

struct DatasetWait {
  std::string reason;  // DatasetNotFound | DatasetNotReady | DatasetFailed
  std::string message;
};

// `dataset` is the cache's copy of the Dataset spec.dataset.ref names, or absent. On Ready,
// rewrites `spec` to read its claim and returns nothing.
std::optional<DatasetWait> ResolveDatasetRef(BenchmarkSpec* spec, const std::optional<nlohmann::json>& dataset);

}  // namespace ergobench::controller

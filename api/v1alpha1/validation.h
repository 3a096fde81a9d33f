// Validation of a defaulted Benchmark: the schema's enums and bounds, the task catalog's
// hyperparameters, and the cross-field rules (a backend the task supports, pod names that
// fit in a DNS label). Reports every problem with its field path.
#pragma once

#include <string>
#include <vector>

#include "api/v1alpha1/benchmark.h"
#include "base/field_errors.h"

namespace ergobench {

inline constexpr int64_t kMaxWorkers = 1024;
// A Dataset's name leaves room for its children's suffixes ("-stage", "-data") in 63.
inline constexpr size_t kMaxDatasetNameLength = 57;

FieldErrors ValidateBenchmark(const Benchmark& benchmark);

// A bound on what a user may write, as the CRD's schema states it (so the API server refuses
// the same), checked here too for `ergobench run`. `path` names a spec field; "*" stands for
// every value of a map. `keyword` is the schema's: maxLength, maxItems or maxProperties.
struct SpecLimit {
  std::string path;
  const char* keyword;
  int64_t max;
};
const std::vector<SpecLimit>& SpecLimits();

// The longest metadata.name whose worker pods ("<name>-worker-<k-1>") still fit in a
// 63-character DNS label.
size_t MaxNameLength(int64_t workers);

}  // namespace ergobench

// Validation of a defaulted Benchmark: the schema's enums and bounds, the task catalog's
// hyperparameters, and the cross-field rules (a backend the task supports, pod names that
// fit in a DNS label). Reports every problem with its field path.
#pragma once

#include "api/benchmark.h"
#include "base/field_errors.h"

namespace ergobench {

inline constexpr int64_t kMaxWorkers = 1024;

FieldErrors ValidateBenchmark(const Benchmark& benchmark);

// The longest metadata.name whose worker pods ("<name>-worker-<k-1>") still fit in a
// 63-character DNS label.
size_t MaxNameLength(int64_t workers);

}  // namespace ergobench

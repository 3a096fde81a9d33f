// JSON form of the Benchmark resource, the way the Kubernetes API serves it. Decoding is
// strict: unknown fields and wrong types are reported with their paths, never dropped.
// YAML input goes through yaml_json.h first.
#pragma once

#include <nlohmann/json.hpp>

#include "api/v1alpha1/benchmark.h"
#include "base/field_errors.h"

namespace ergobench {

// Decodes what it can and adds every problem of what the user wrote (apiVersion, kind,
// metadata, spec) to `errors`. The status is the operator's: one written by another version
// (a newer result field, say) must not make a valid spec invalid, so its problems go to
// `status_errors` when given, and are otherwise dropped.
Benchmark DecodeBenchmark(const nlohmann::json& json, FieldErrors* errors, FieldErrors* status_errors = nullptr);

// Omits unset optional fields and an empty status.
nlohmann::json EncodeBenchmark(const Benchmark& benchmark);
nlohmann::json EncodeSpec(const BenchmarkSpec& spec);
nlohmann::json EncodeStatus(const BenchmarkStatus& status);

}  // namespace ergobench

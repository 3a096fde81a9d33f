// JSON form of the Dataset resource, strict as the Benchmark's codec: unknown fields and wrong
// types are reported with their paths; status problems never invalidate the spec.
#pragma once

#include <nlohmann/json.hpp>

#include "api/v1alpha1/dataset.h"
#include "base/field_errors.h"

namespace ergobench {

Dataset DecodeDataset(const nlohmann::json& json, FieldErrors* errors);
nlohmann::json EncodeDataset(const Dataset& dataset);
nlohmann::json EncodeDatasetStatus(const DatasetStatus& status);

}  // namespace ergobench

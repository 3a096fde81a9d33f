// The parts every ergobench resource shares in its JSON form: metadata, and status
// conditions. Used by the Benchmark and Dataset codecs; helpers for optional fields too.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/v1alpha1/object_meta.h"
#include "base/field_errors.h"
#include "base/json_reader.h"

namespace ergobench {

// Keeps every metadata field it does not model in ObjectMeta::other, so that a write-back
// loses nothing.
ObjectMeta DecodeMetadata(const nlohmann::json* json, FieldErrors* errors);
nlohmann::json EncodeMetadata(const ObjectMeta& meta);

// `json` is the list at `path` ("status.conditions"); absent reads as none.
std::vector<Condition> DecodeConditions(const nlohmann::json* json, const std::string& path, FieldErrors* errors);
nlohmann::json EncodeConditions(const std::vector<Condition>& conditions);

// The object at `key` whose values are all numbers ({"samplesPerSecond": 5}); an error names
// each value that is not.
std::map<std::string, double> DecodeNumberMap(ObjectReader* reader, const std::string& key);

template <typename T>
void PutIf(nlohmann::json* out, const char* key, const std::optional<T>& value) {
  if (value) (*out)[key] = *value;
}

inline void PutIfNotEmpty(nlohmann::json* out, const char* key, const std::string& value) {
  if (!value.empty()) (*out)[key] = value;
}

}  // namespace ergobench

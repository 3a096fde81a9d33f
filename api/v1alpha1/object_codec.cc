#include "api/v1alpha1/object_codec.h"

#include "base/json_reader.h"

namespace ergobench {

ObjectMeta DecodeMetadata(const nlohmann::json* json, FieldErrors* errors) {
  ObjectMeta meta;
  ObjectReader r(json, "metadata", errors);
  r.String("name", &meta.name);
  r.String("namespace", &meta.namespace_name);
  r.String("uid", &meta.uid);
  r.String("resourceVersion", &meta.resource_version);
  r.Int("generation", &meta.generation);
  r.StringMap("labels", &meta.labels);
  r.StringMap("annotations", &meta.annotations);
  // metadata belongs to the API server's schema, not ours: keep the rest as it came.
  r.AllowUnknown();
  for (const std::string& key : r.UnreadKeys()) meta.other[key] = json->at(key);
  return meta;
}

nlohmann::json EncodeMetadata(const ObjectMeta& meta) {
  nlohmann::json out = meta.other;
  PutIfNotEmpty(&out, "name", meta.name);
  PutIfNotEmpty(&out, "namespace", meta.namespace_name);
  PutIfNotEmpty(&out, "uid", meta.uid);
  PutIfNotEmpty(&out, "resourceVersion", meta.resource_version);
  if (meta.generation != 0) out["generation"] = meta.generation;
  if (!meta.labels.empty()) out["labels"] = meta.labels;
  if (!meta.annotations.empty()) out["annotations"] = meta.annotations;
  return out;
}

std::vector<Condition> DecodeConditions(const nlohmann::json* json, const std::string& path, FieldErrors* errors) {
  std::vector<Condition> conditions;
  if (json == nullptr) return conditions;
  if (!json->is_array()) {
    errors->Add(path, "must be a list, got " + JsonTypeName(*json));
    return conditions;
  }
  for (size_t i = 0; i < json->size(); ++i) {
    ObjectReader c(&(*json)[i], IndexPath(path, i), errors);
    Condition condition;
    c.String("type", &condition.type);
    c.String("status", &condition.status);
    c.String("reason", &condition.reason);
    c.String("message", &condition.message);
    c.String("lastTransitionTime", &condition.last_transition_time);
    c.Int("observedGeneration", &condition.observed_generation);
    conditions.push_back(std::move(condition));
  }
  return conditions;
}

nlohmann::json EncodeConditions(const std::vector<Condition>& conditions) {
  nlohmann::json out = nlohmann::json::array();
  for (const Condition& c : conditions) {
    nlohmann::json condition = {{"type", c.type}, {"status", c.status}};
    PutIfNotEmpty(&condition, "reason", c.reason);
    PutIfNotEmpty(&condition, "message", c.message);
    PutIfNotEmpty(&condition, "lastTransitionTime", c.last_transition_time);
    if (c.observed_generation != 0) condition["observedGeneration"] = c.observed_generation;
    out.push_back(std::move(condition));
  }
  return out;
}

std::map<std::string, double> DecodeNumberMap(ObjectReader* reader, const std::string& key) {
  std::map<std::string, double> out;
  const nlohmann::json* object = reader->Object(key);
  if (object == nullptr) return out;
  ObjectReader values(object, reader->PathOf(key), reader->errors());
  for (const auto& [name, value] : object->items()) {
    double number = 0;
    if (values.Number(name, &number)) out[name] = number;
  }
  return out;
}

}  // namespace ergobench

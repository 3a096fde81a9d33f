#include "api/v1alpha1/dataset_codec.h"

#include "api/v1alpha1/object_codec.h"
#include "base/json_reader.h"

namespace ergobench {
namespace {

DatasetResourceSpec DecodeDatasetSpec(const nlohmann::json* json, FieldErrors* errors) {
  DatasetResourceSpec spec;
  ObjectReader r(json, "spec", errors);
  {
    ObjectReader s(r.Object("source"), "spec.source", errors);
    s.String("url", &spec.source.url);
    s.String("sha256", &spec.source.sha256);
    ObjectReader claim(s.Object("persistentVolumeClaim"), "spec.source.persistentVolumeClaim", errors);
    claim.String("claimName", &spec.source.claim_name);
    claim.String("path", &spec.source.claim_path);
  }
  ObjectReader storage(r.Object("storage"), "spec.storage", errors);
  if (const nlohmann::json* size = storage.Raw("size")) {
    if (size->is_string()) {
      spec.storage.size = size->get<std::string>();
    } else {
      errors->Add("spec.storage.size", "must be a quantity such as \"2Gi\", got " + JsonTypeName(*size));
    }
  }
  storage.String("storageClassName", &spec.storage.storage_class_name);
  storage.Strings("accessModes", &spec.storage.access_modes);
  return spec;
}

DatasetStatus DecodeDatasetStatus(const nlohmann::json* json, FieldErrors* errors) {
  DatasetStatus status;
  ObjectReader r(json, "status", errors);
  r.String("phase", &status.phase);
  status.conditions = DecodeConditions(r.Raw("conditions"), "status.conditions", errors);
  r.String("claimName", &status.claim_name);
  r.String("path", &status.path);
  r.Int("bytes", &status.bytes);
  r.Int("files", &status.files);
  r.String("stagedTime", &status.staged_time);
  r.Int("observedGeneration", &status.observed_generation);
  return status;
}

nlohmann::json EncodeSpec(const DatasetResourceSpec& spec) {
  nlohmann::json source = nlohmann::json::object();
  PutIfNotEmpty(&source, "url", spec.source.url);
  PutIfNotEmpty(&source, "sha256", spec.source.sha256);
  if (!spec.source.claim_name.empty() || !spec.source.claim_path.empty()) {
    nlohmann::json claim = nlohmann::json::object();
    PutIfNotEmpty(&claim, "claimName", spec.source.claim_name);
    PutIfNotEmpty(&claim, "path", spec.source.claim_path);
    source["persistentVolumeClaim"] = claim;
  }
  nlohmann::json storage = nlohmann::json::object();
  PutIfNotEmpty(&storage, "size", spec.storage.size);
  PutIfNotEmpty(&storage, "storageClassName", spec.storage.storage_class_name);
  if (!spec.storage.access_modes.empty()) storage["accessModes"] = spec.storage.access_modes;
  nlohmann::json out = {{"source", source}};
  if (!storage.empty()) out["storage"] = storage;
  return out;
}

}  // namespace

std::string StagedDataPath(const DatasetSource& source) { return source.sha256 + "/data"; }

Dataset DecodeDataset(const nlohmann::json& json, FieldErrors* errors) {
  Dataset dataset;
  ObjectReader r(&json, "", errors);
  r.String("apiVersion", &dataset.api_version);
  r.String("kind", &dataset.kind);
  dataset.metadata = DecodeMetadata(r.Object("metadata"), errors);
  dataset.spec = DecodeDatasetSpec(r.Object("spec"), errors);
  FieldErrors dropped;  // the operator's own writing; another version's must not fail the spec
  dataset.status = DecodeDatasetStatus(r.Object("status"), &dropped);
  return dataset;
}

nlohmann::json EncodeDatasetStatus(const DatasetStatus& status) {
  nlohmann::json out = nlohmann::json::object();
  PutIfNotEmpty(&out, "phase", status.phase);
  if (!status.conditions.empty()) out["conditions"] = EncodeConditions(status.conditions);
  PutIfNotEmpty(&out, "claimName", status.claim_name);
  PutIfNotEmpty(&out, "path", status.path);
  PutIf(&out, "bytes", status.bytes);
  PutIf(&out, "files", status.files);
  PutIfNotEmpty(&out, "stagedTime", status.staged_time);
  if (status.observed_generation != 0) out["observedGeneration"] = status.observed_generation;
  return out;
}

nlohmann::json EncodeDataset(const Dataset& dataset) {
  nlohmann::json out = {{"apiVersion", dataset.api_version},
                        {"kind", dataset.kind},
                        {"metadata", EncodeMetadata(dataset.metadata)},
                        {"spec", EncodeSpec(dataset.spec)}};
  nlohmann::json status = EncodeDatasetStatus(dataset.status);
  if (!status.empty()) out["status"] = status;
  return out;
}

}  // namespace ergobench

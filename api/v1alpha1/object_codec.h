// The parts every ergobench resource shares in its JSON form: metadata, and status
// conditions, as field tables (base/json_fields.h) that each resource's table nests.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "api/v1alpha1/object_meta.h"
#include "base/field_errors.h"
#include "base/json_fields.h"
#include "base/json_reader.h"

namespace ergobench {

// Keeps every metadata field it does not model in ObjectMeta::other, so that a write-back
// loses nothing.
const JsonFields<ObjectMeta>& ObjectMetaFields();
const JsonFields<Condition>& ConditionFields();

inline constexpr char kStatusKey[] = "status";

// A resource's top level: apiVersion, kind, metadata, spec, and its status, which
// DecodeResource reads apart, into errors of their own: the operator's writing, which must not
// fail a spec (another version's status, say). The status is written unless it is empty.
template <typename R, typename Spec, typename Status>
JsonFields<R> ResourceFields(Spec R::*spec, const JsonFields<Spec>& spec_fields, Status R::*status,
                             const JsonFields<Status>& status_fields) {
  return JsonFields<R>()
      .Add("apiVersion", &R::api_version, Written::kAlways)
      .Add("kind", &R::kind, Written::kAlways)
      .Object("metadata", &R::metadata, ObjectMetaFields(), Written::kAlways)
      .Object("spec", spec, spec_fields, Written::kAlways)
      .Custom(
          kStatusKey, [](ObjectReader* r, const std::string& key, R*) { r->Raw(key); },
          [status, status_fields](const R& value, const std::string& key, nlohmann::json* out) {
            nlohmann::json encoded = status_fields.Encode(value.*status);
            if (!encoded.empty()) (*out)[key] = std::move(encoded);
          });
}

// `status_errors` null: the status's errors are dropped.
template <typename R, typename Status>
R DecodeResource(const JsonFields<R>& fields, Status R::*status, const JsonFields<Status>& status_fields,
                 const nlohmann::json& json, FieldErrors* errors, FieldErrors* status_errors) {
  R resource = fields.Decode(&json, "", errors);
  FieldErrors dropped;
  const auto found = json.is_object() ? json.find(kStatusKey) : json.end();
  status_fields.Read(found != json.end() ? &*found : nullptr, kStatusKey,
                     status_errors != nullptr ? status_errors : &dropped, &(resource.*status));
  return resource;
}

}  // namespace ergobench

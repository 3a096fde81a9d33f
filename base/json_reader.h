// ObjectReader reads the fields of one JSON object into typed values and records every
// problem (wrong type, unknown field) in FieldErrors under the field's path. The codecs
// are written with it so that unknown fields are reported rather than dropped.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/field_errors.h"

namespace ergobench {

// Names a JSON value's type the way a user thinks of it: "string", "integer", "object"...
std::string JsonTypeName(const nlohmann::json& value);

// A value as an error message quotes it: JSON, at most `max_bytes` long ("..." marks a cut),
// invalid UTF-8 shown as U+FFFD. Never throws.
std::string ShowJson(const nlohmann::json& value, size_t max_bytes = 40);

// `object[key]` when `object` is an object holding a string there, else `fallback`. Never
// throws, where nlohmann's value() throws on a key that holds another type (even null): for
// reading a field of untrusted JSON that another check reports.
std::string StringField(const nlohmann::json& object, const std::string& key, const std::string& fallback = "");

class ObjectReader {
 public:
  // `object` may be null (absent), which reads as an empty object; any other non-object
  // is reported at `path`.
  ObjectReader(const nlohmann::json* object, std::string path, FieldErrors* errors);
  // Reports every key that no call asked for.
  ~ObjectReader();

  ObjectReader(const ObjectReader&) = delete;
  ObjectReader& operator=(const ObjectReader&) = delete;

  // Each returns true when the key was present and well typed; an absent or null key
  // leaves `out` untouched.
  bool String(const std::string& key, std::string* out);
  bool Int(const std::string& key, int64_t* out);
  bool Int(const std::string& key, std::optional<int64_t>* out);
  bool Number(const std::string& key, double* out);
  bool Number(const std::string& key, std::optional<double>* out);
  bool Bool(const std::string& key, bool* out);
  bool StringMap(const std::string& key, std::map<std::string, std::string>* out);
  // A list of strings; each element that is not one is reported at its index.
  bool Strings(const std::string& key, std::vector<std::string>* out);
  // Any JSON value, type-checked by the caller.
  const nlohmann::json* Raw(const std::string& key);
  // A nested object: returns it (or nullptr if absent) and its path, for a child reader.
  const nlohmann::json* Object(const std::string& key);

  // Stops unknown-key reporting for keys not in this reader's schema (metadata).
  void AllowUnknown() { allow_unknown_ = true; }
  // The keys that no call asked for.
  std::set<std::string> UnreadKeys() const;

  std::string PathOf(const std::string& key) const { return JoinPath(path_, key); }
  FieldErrors* errors() const { return errors_; }

 private:
  const nlohmann::json* Find(const std::string& key);
  void TypeError(const std::string& key, const char* expected, const nlohmann::json& got);

  const nlohmann::json* object_;
  std::string path_;
  FieldErrors* errors_;
  std::set<std::string> read_;
  bool allow_unknown_ = false;
};

}  // namespace ergobench

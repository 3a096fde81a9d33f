#include "base/json_reader.h"

#include <cmath>

#include "base/utf8.h"

namespace ergobench {

std::string JsonTypeName(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::boolean: return "boolean";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned: return "integer";
    case nlohmann::json::value_t::number_float: return "number";
    case nlohmann::json::value_t::string: return "string";
    case nlohmann::json::value_t::array: return "list";
    case nlohmann::json::value_t::object: return "object";
    default: return "value";
  }
}

ObjectReader::ObjectReader(const nlohmann::json* object, std::string path, FieldErrors* errors)
    : object_(object), path_(std::move(path)), errors_(errors) {
  if (object_ != nullptr && object_->is_null()) object_ = nullptr;
  if (object_ != nullptr && !object_->is_object()) {
    errors_->Add(path_, "must be an object, got " + JsonTypeName(*object_));
    object_ = nullptr;
  }
}

ObjectReader::~ObjectReader() {
  if (allow_unknown_) return;
  for (const std::string& key : UnreadKeys()) errors_->Add(PathOf(key), "unknown field");
}

std::set<std::string> ObjectReader::UnreadKeys() const {
  std::set<std::string> unread;
  if (object_ == nullptr) return unread;
  for (const auto& [key, value] : object_->items()) {
    if (!read_.contains(key)) unread.insert(key);
  }
  return unread;
}

const nlohmann::json* ObjectReader::Find(const std::string& key) {
  read_.insert(key);
  if (object_ == nullptr) return nullptr;
  auto it = object_->find(key);
  if (it == object_->end() || it->is_null()) return nullptr;
  return &*it;
}

std::string StringField(const nlohmann::json& object, const std::string& key, const std::string& fallback) {
  if (!object.is_object()) return fallback;
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : fallback;
}

std::string ShowJson(const nlohmann::json& value, size_t max_bytes) {
  // JSON has no infinity (dump() writes null); YAML reads a number of 400 digits as one.
  if (value.is_number_float() && !std::isfinite(value.get<double>())) {
    const double v = value.get<double>();
    return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
  }
  return AbbreviateUtf8(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), max_bytes);
}

void ObjectReader::TypeError(const std::string& key, const char* expected,
                             const nlohmann::json& got) {
  errors_->Add(PathOf(key), std::string("must be ") + expected + ", got " + JsonTypeName(got) + " " + ShowJson(got));
}

bool ObjectReader::String(const std::string& key, std::string* out) {
  const nlohmann::json* v = Find(key);
  if (v == nullptr) return false;
  if (!v->is_string()) {
    TypeError(key, "a string", *v);
    return false;
  }
  *out = v->get<std::string>();
  return true;
}

bool ObjectReader::Int(const std::string& key, int64_t* out) {
  std::optional<int64_t> value;
  if (!Int(key, &value)) return false;
  *out = *value;
  return true;
}

bool ObjectReader::Int(const std::string& key, std::optional<int64_t>* out) {
  const nlohmann::json* v = Find(key);
  if (v == nullptr) return false;
  // 4.0 is accepted as 4: JSON writers often emit integral numbers as floats.
  if (v->is_number_float() && std::isfinite(v->get<double>()) &&
      std::floor(v->get<double>()) == v->get<double>() && std::fabs(v->get<double>()) < 9e15) {
    *out = static_cast<int64_t>(v->get<double>());
    return true;
  }
  if (!v->is_number_integer()) {
    TypeError(key, "an integer", *v);
    return false;
  }
  *out = v->get<int64_t>();
  return true;
}

bool ObjectReader::Number(const std::string& key, double* out) {
  std::optional<double> value;
  if (!Number(key, &value)) return false;
  *out = *value;
  return true;
}

bool ObjectReader::Number(const std::string& key, std::optional<double>* out) {
  const nlohmann::json* v = Find(key);
  if (v == nullptr) return false;
  if (!v->is_number()) {
    TypeError(key, "a number", *v);
    return false;
  }
  *out = v->get<double>();
  return true;
}

bool ObjectReader::Bool(const std::string& key, bool* out) {
  const nlohmann::json* v = Find(key);
  if (v == nullptr) return false;
  if (!v->is_boolean()) {
    TypeError(key, "true or false", *v);
    return false;
  }
  *out = v->get<bool>();
  return true;
}

bool ObjectReader::StringMap(const std::string& key, std::map<std::string, std::string>* out) {
  const nlohmann::json* v = Find(key);
  if (v == nullptr) return false;
  if (!v->is_object()) {
    TypeError(key, "an object of strings", *v);
    return false;
  }
  bool ok = true;
  for (const auto& [k, value] : v->items()) {
    if (!value.is_string()) {
      errors_->Add(JoinPath(PathOf(key), k), "must be a string, got " + JsonTypeName(value));
      ok = false;
      continue;
    }
    (*out)[k] = value.get<std::string>();
  }
  return ok;
}

bool ObjectReader::Strings(const std::string& key, std::vector<std::string>* out) {
  const nlohmann::json* v = Find(key);
  if (v == nullptr) return false;
  if (!v->is_array()) {
    TypeError(key, "a list of strings", *v);
    return false;
  }
  bool ok = true;
  for (size_t i = 0; i < v->size(); ++i) {
    if (!(*v)[i].is_string()) {
      errors_->Add(IndexPath(PathOf(key), i), "must be a string, got " + JsonTypeName((*v)[i]));
      ok = false;
      continue;
    }
    out->push_back((*v)[i].get<std::string>());
  }
  return ok;
}

const nlohmann::json* ObjectReader::Raw(const std::string& key) { return Find(key); }

const nlohmann::json* ObjectReader::Object(const std::string& key) { return Find(key); }

}  // namespace ergobench

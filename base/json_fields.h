// JsonFields<T>: one table of an object's JSON fields that both its decoder and its encoder
// read, so that each key is written once (as serde's derive does in Rust, or struct tags in
// Go). Decoding goes through ObjectReader: wrong types and unknown keys are reported under the
// field's path, and an absent or null key leaves the member as it was.
//
//   const JsonFields<Goal>& GoalFields() {
//     static const JsonFields<Goal> fields = JsonFields<Goal>()
//         .Add("metric", &Goal::metric)
//         .Add("target", &Goal::target)    // std::optional<double>: written when it holds one
//         .Add("light", &Goal::light);     // written when true
//     return fields;
//   }
//
// When a field is written: optional members when they hold a value, everything else unless
// empty ("" 0 false, an empty map, list or JSON value) by default, or always (kAlways), or when
// a predicate on the whole object holds.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/field_errors.h"
#include "base/json_reader.h"

namespace ergobench {

enum class Written { kUnlessEmpty, kAlways };

// A member kept as JSON for a later reader (Kubernetes' own types): it must be an object, or a
// list.
enum class JsonShape { kObject, kList };

namespace json_fields {

// How one member type is read, written and found empty.
template <typename M>
struct Value;

template <>
struct Value<std::string> {
  static void Read(ObjectReader* r, const std::string& key, std::string* out) { r->String(key, out); }
  static bool Empty(const std::string& v) { return v.empty(); }
};
template <>
struct Value<int64_t> {
  static void Read(ObjectReader* r, const std::string& key, int64_t* out) { r->Int(key, out); }
  static bool Empty(int64_t v) { return v == 0; }
};
template <>
struct Value<double> {
  static void Read(ObjectReader* r, const std::string& key, double* out) { r->Number(key, out); }
  static bool Empty(double v) { return v == 0; }
};
template <>
struct Value<bool> {
  static void Read(ObjectReader* r, const std::string& key, bool* out) { r->Bool(key, out); }
  static bool Empty(bool v) { return !v; }
};
template <>
struct Value<std::map<std::string, std::string>> {
  static void Read(ObjectReader* r, const std::string& key, std::map<std::string, std::string>* out) {
    r->StringMap(key, out);
  }
  static bool Empty(const std::map<std::string, std::string>& v) { return v.empty(); }
};
template <>
struct Value<std::vector<std::string>> {
  static void Read(ObjectReader* r, const std::string& key, std::vector<std::string>* out) { r->Strings(key, out); }
  static bool Empty(const std::vector<std::string>& v) { return v.empty(); }
};
template <>
struct Value<std::map<std::string, double>> {
  // {"samplesPerSecond": 5}: an error names each value that is not a number.
  static void Read(ObjectReader* r, const std::string& key, std::map<std::string, double>* out) {
    const nlohmann::json* object = r->Object(key);
    if (object == nullptr) return;
    ObjectReader values(object, r->PathOf(key), r->errors());
    for (const auto& [name, value] : object->items()) {
      double number = 0;
      if (values.Number(name, &number)) (*out)[name] = number;
    }
  }
  static bool Empty(const std::map<std::string, double>& v) { return v.empty(); }
};
template <typename M>
struct Value<std::optional<M>> {
  static void Read(ObjectReader* r, const std::string& key, std::optional<M>* out) {
    M value{};
    if (ReadPresent(r, key, &value)) *out = value;
  }
  static bool Empty(const std::optional<M>& v) { return !v.has_value(); }

 private:
  static bool ReadPresent(ObjectReader* r, const std::string& key, int64_t* v) { return r->Int(key, v); }
  static bool ReadPresent(ObjectReader* r, const std::string& key, double* v) { return r->Number(key, v); }
  static bool ReadPresent(ObjectReader* r, const std::string& key, bool* v) { return r->Bool(key, v); }
  static bool ReadPresent(ObjectReader* r, const std::string& key, std::vector<std::string>* v) {
    return r->Strings(key, v);
  }
};

template <typename M>
nlohmann::json ToJson(const M& value) {
  return nlohmann::json(value);
}
// An empty optional is null, which no writer writes.
template <typename M>
nlohmann::json ToJson(const std::optional<M>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json();
}

}  // namespace json_fields

template <typename T>
class JsonFields {
 public:
  using Predicate = std::function<bool(const T&)>;
  using Reader = std::function<void(ObjectReader* r, const std::string& key, T* out)>;
  using Writer = std::function<void(const T& value, const std::string& key, nlohmann::json* out)>;

  // A member of a plain type: string, int64_t, double, bool, a map or list of strings, a map of
  // numbers, or an optional of a scalar.
  template <typename M>
  JsonFields& Add(std::string key, M T::*member, Written when = Written::kUnlessEmpty) {
    return Add(std::move(key), member, Unless<M>(member, when));
  }
  template <typename M>
  JsonFields& Add(std::string key, M T::*member, Predicate when) {
    return Custom(
        std::move(key), [member](ObjectReader* r, const std::string& k, T* out) { json_fields::Value<M>::Read(r, k, &(out->*member)); },
        [member, when](const T& value, const std::string& k, nlohmann::json* out) {
          if (!when(value)) return;
          nlohmann::json v = json_fields::ToJson(value.*member);
          if (!v.is_null()) (*out)[k] = std::move(v);
        });
  }

  // A member kept as JSON of the given shape.
  JsonFields& Json(std::string key, nlohmann::json T::*member, JsonShape shape, Written when = Written::kUnlessEmpty) {
    return Custom(
        std::move(key),
        [member, shape](ObjectReader* r, const std::string& k, T* out) {
          const nlohmann::json* v = r->Raw(k);
          if (v == nullptr) return;
          const bool list = shape == JsonShape::kList;
          if (list ? v->is_array() : v->is_object()) {
            out->*member = *v;
          } else {
            r->errors()->Add(r->PathOf(k), std::string(list ? "must be a list" : "must be an object") + ", got " +
                                               JsonTypeName(*v));
          }
        },
        [member, when](const T& value, const std::string& k, nlohmann::json* out) {
          const nlohmann::json& v = value.*member;
          if (when == Written::kAlways || (!v.is_null() && !v.empty())) (*out)[k] = v;
        });
  }

  // A nested object, written unless it encodes to {} (or always).
  template <typename U>
  JsonFields& Object(std::string key, U T::*member, const JsonFields<U>& fields, Written when = Written::kUnlessEmpty) {
    return Custom(
        std::move(key),
        [member, fields](ObjectReader* r, const std::string& k, T* out) {
          fields.Read(r->Object(k), r->PathOf(k), r->errors(), &(out->*member));
        },
        [member, fields, when](const T& value, const std::string& k, nlohmann::json* out) {
          nlohmann::json encoded = fields.Encode(value.*member);
          if (when == Written::kAlways || !encoded.empty()) (*out)[k] = std::move(encoded);
        });
  }
  // A nested object, written when `when` holds of the whole object.
  template <typename U>
  JsonFields& Object(std::string key, U T::*member, const JsonFields<U>& fields, Predicate when) {
    return Custom(
        std::move(key),
        [member, fields](ObjectReader* r, const std::string& k, T* out) {
          fields.Read(r->Object(k), r->PathOf(k), r->errors(), &(out->*member));
        },
        [member, fields, when](const T& value, const std::string& k, nlohmann::json* out) {
          if (when(value)) (*out)[k] = fields.Encode(value.*member);
        });
  }
  // An optional nested object: present when the key is, written when it holds a value.
  template <typename U>
  JsonFields& Object(std::string key, std::optional<U> T::*member, const JsonFields<U>& fields) {
    return Custom(
        std::move(key),
        [member, fields](ObjectReader* r, const std::string& k, T* out) {
          const nlohmann::json* object = r->Object(k);
          if (object == nullptr) return;
          (out->*member).emplace();
          fields.Read(object, r->PathOf(k), r->errors(), &*(out->*member));
        },
        [member, fields](const T& value, const std::string& k, nlohmann::json* out) {
          if (value.*member) (*out)[k] = fields.Encode(*(value.*member));
        });
  }
  // A list of objects, each reported at its index; written unless empty, or when `when` holds of
  // the whole object (an empty list too).
  template <typename U>
  JsonFields& List(std::string key, std::vector<U> T::*member, const JsonFields<U>& fields, Predicate when = nullptr) {
    return Custom(
        std::move(key),
        [member, fields](ObjectReader* r, const std::string& k, T* out) {
          const nlohmann::json* list = r->Raw(k);
          if (list == nullptr) return;
          if (!list->is_array()) {
            r->errors()->Add(r->PathOf(k), "must be a list, got " + JsonTypeName(*list));
            return;
          }
          for (size_t i = 0; i < list->size(); ++i) {
            (out->*member).push_back(fields.Decode(&(*list)[i], IndexPath(r->PathOf(k), i), r->errors()));
          }
        },
        [member, fields, when](const T& value, const std::string& k, nlohmann::json* out) {
          if (when ? !when(value) : (value.*member).empty()) return;
          nlohmann::json& list = (*out)[k] = nlohmann::json::array();
          for (const U& item : value.*member) list.push_back(fields.Encode(item));
        });
  }
  // An object of named objects ({"samplesPerSecond": {...}}); written unless empty.
  template <typename U>
  JsonFields& Map(std::string key, std::map<std::string, U> T::*member, const JsonFields<U>& fields) {
    return Custom(
        std::move(key),
        [member, fields](ObjectReader* r, const std::string& k, T* out) {
          const nlohmann::json* object = r->Object(k);
          if (object == nullptr) return;
          if (!object->is_object()) return r->errors()->Add(r->PathOf(k), "must be an object, got " + JsonTypeName(*object));
          for (const auto& [name, item] : object->items()) {
            (out->*member)[name] = fields.Decode(&item, JoinPath(r->PathOf(k), name), r->errors());
          }
        },
        [member, fields](const T& value, const std::string& k, nlohmann::json* out) {
          for (const auto& [name, item] : value.*member) (*out)[k][name] = fields.Encode(item);
        });
  }
  // A member whose own fields sit in this object, beside ours (serde's flatten).
  template <typename U>
  JsonFields& Inline(U T::*member, const JsonFields<U>& fields) {
    fields_.push_back({"", [member, fields](ObjectReader* r, const std::string&, T* out) { fields.Read(r, &(out->*member)); },
                       [member, fields](const T& value, const std::string&, nlohmann::json* out) {
                         fields.Write(value.*member, out);
                       }});
    return *this;
  }
  // A nested object whose fields are members of T itself ({"persistentVolumeClaim": {...}}
  // over two members of the source); written unless it encodes to {}.
  JsonFields& Within(std::string key, const JsonFields<T>& fields) {
    return Custom(
        std::move(key),
        [fields](ObjectReader* r, const std::string& k, T* out) { fields.Read(r->Object(k), r->PathOf(k), r->errors(), out); },
        [fields](const T& value, const std::string& k, nlohmann::json* out) {
          nlohmann::json encoded = fields.Encode(value);
          if (!encoded.empty()) (*out)[k] = std::move(encoded);
        });
  }
  // Every key no other field of this table reads, kept as it came and written back, for an
  // object of someone else's schema (Kubernetes' metadata). Last in the table.
  JsonFields& Rest(nlohmann::json T::*member) {
    fields_.push_back({"",
                       [member](ObjectReader* r, const std::string&, T* out) {
                         r->AllowUnknown();
                         for (const std::string& key : r->UnreadKeys()) {
                           const nlohmann::json* v = r->Raw(key);  // null for a null value
                           (out->*member)[key] = v != nullptr ? *v : nlohmann::json();
                         }
                       },
                       [member](const T& value, const std::string&, nlohmann::json* out) {
                         for (const auto& [key, v] : (value.*member).items()) {
                           if (!out->contains(key)) (*out)[key] = v;
                         }
                       }});
    return *this;
  }
  // A field with a reader and a writer of its own, for what the kinds above do not say.
  JsonFields& Custom(std::string key, Reader read, Writer write) {
    fields_.push_back({std::move(key), std::move(read), std::move(write)});
    return *this;
  }

  // Reads this table's fields from `r`, into `out` as it stands.
  void Read(ObjectReader* r, T* out) const {
    for (const Field& f : fields_) f.read(r, f.key, out);
  }
  // Reads the object `json` (null: absent, which reads as {}) at `path`.
  void Read(const nlohmann::json* json, const std::string& path, FieldErrors* errors, T* out) const {
    ObjectReader r(json, path, errors);
    Read(&r, out);
  }
  T Decode(const nlohmann::json* json, const std::string& path, FieldErrors* errors) const {
    T out{};
    Read(json, path, errors, &out);
    return out;
  }

  void Write(const T& value, nlohmann::json* out) const {
    for (const Field& f : fields_) f.write(value, f.key, out);
  }
  nlohmann::json Encode(const T& value) const {
    nlohmann::json out = nlohmann::json::object();
    Write(value, &out);
    return out;
  }

 private:
  struct Field {
    std::string key;  // empty for an Inline member
    Reader read;
    Writer write;
  };

  template <typename M>
  static Predicate Unless(M T::*member, Written when) {
    if (when == Written::kAlways) return [](const T&) { return true; };
    return [member](const T& value) { return !json_fields::Value<M>::Empty(value.*member); };
  }

  std::vector<Field> fields_;
};

}  // namespace ergobench

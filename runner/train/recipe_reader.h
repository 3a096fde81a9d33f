// Reads a task's recipe from the defaulted spec.hyperparameters. Validation has checked every
// value and the catalog filled every default, so a missing or mistyped key means the config
// did not come through `ergobench validate`'s path (a hand-written runner config, say): it is
// reported as an error naming the field, never thrown.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "base/field_errors.h"
#include "base/json_reader.h"
#include "base/status.h"

namespace ergobench {

class RecipeReader {
 public:
  explicit RecipeReader(const nlohmann::json& hyperparameters);

  // Each returns the key's value, or a zero value after recording the problem.
  int64_t Int(const std::string& key);
  double Number(const std::string& key);
  bool Bool(const std::string& key);
  std::string String(const std::string& key);

  // OK, or InvalidArgument listing every missing or mistyped key with its path.
  Status status() const { return errors_.ToStatus(); }

 private:
  template <typename T>
  T Required(const std::string& key, bool (ObjectReader::*read)(const std::string&, T*));

  FieldErrors errors_;
  ObjectReader reader_;
};

}  // namespace ergobench

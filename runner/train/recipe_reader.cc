#include "runner/train/recipe_reader.h"

namespace ergobench {

RecipeReader::RecipeReader(const nlohmann::json& hyperparameters)
    : reader_(&hyperparameters, "spec.hyperparameters", &errors_) {
  reader_.AllowUnknown();  // each task reads only its own keys
}

template <typename T>
T RecipeReader::Required(const std::string& key, bool (ObjectReader::*read)(const std::string&, T*)) {
  T value{};
  const size_t errors_before = errors_.size();
  // A present but mistyped key is reported by the reader; only an absent one is reported here.
  if (!(reader_.*read)(key, &value) && errors_.size() == errors_before) {
    errors_.Add(reader_.PathOf(key), "is required");
  }
  return value;
}

int64_t RecipeReader::Int(const std::string& key) { return Required<int64_t>(key, &ObjectReader::Int); }
double RecipeReader::Number(const std::string& key) { return Required<double>(key, &ObjectReader::Number); }
bool RecipeReader::Bool(const std::string& key) { return Required<bool>(key, &ObjectReader::Bool); }
std::string RecipeReader::String(const std::string& key) { return Required<std::string>(key, &ObjectReader::String); }

}  // namespace ergobench

#include "api/contract/artifact_bundle.h"

#include <nlohmann/json.hpp>

#include "base/json_fields.h"
#include "base/json_reader.h"

namespace ergobench {

bool IsPortableFileName(const std::string& name) {
  if (name.empty() || name == "." || name == ".." || name.size() > 253) return false;
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                    c == '.' || c == '_';
    if (!ok) return false;
  }
  return true;
}

namespace {

constexpr char kFiles[] = "files";
constexpr char kSkipped[] = "skipped";

// name → text, each name one that a ConfigMap key and a results folder's file can both hold.
void ReadFiles(ObjectReader* r, const std::string& key, ArtifactBundle* out) {
  if (!r->StringMap(key, &out->files)) return;
  for (const auto& [name, content] : out->files) {
    if (!IsPortableFileName(name)) {
      r->errors()->Add(JoinPath(r->PathOf(key), name.substr(0, 64)), "is not a portable file name ([-._a-zA-Z0-9]+)");
    }
  }
}

const JsonFields<ArtifactBundle>& BundleFields() {
  static const JsonFields<SkippedFile> skipped = JsonFields<SkippedFile>()
                                                     .Add("name", &SkippedFile::name, Written::kAlways)
                                                     .Add("bytes", &SkippedFile::bytes, Written::kAlways)
                                                     .Add("reason", &SkippedFile::reason, Written::kAlways);
  const auto always = [](const ArtifactBundle&) { return true; };
  static const JsonFields<ArtifactBundle> fields =
      JsonFields<ArtifactBundle>()
          .Custom(kFiles, ReadFiles,
                  [](const ArtifactBundle& b, const std::string& key, nlohmann::json* out) { (*out)[key] = b.files; })
          .List(kSkipped, &ArtifactBundle::skipped, skipped, always);
  return fields;
}

}  // namespace

std::string EncodeArtifactBundle(const ArtifactBundle& bundle) { return BundleFields().Encode(bundle).dump(); }

StatusOr<ArtifactBundle> DecodeArtifactBundle(const std::string& text) {
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  FieldErrors errors;
  if (!json.is_object() || !json.contains(kFiles) || !json.contains(kSkipped)) {
    errors.Add("", "expected {\"files\": {...}, \"skipped\": [...]}");
  }
  ArtifactBundle bundle = BundleFields().Decode(&json, "", &errors);
  if (!errors.empty()) return Status::InvalidArgument("artifact bundle: " + errors.Joined());
  return bundle;
}

}  // namespace ergobench

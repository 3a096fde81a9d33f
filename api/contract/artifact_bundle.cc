#include "api/contract/artifact_bundle.h"

#include <nlohmann/json.hpp>

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

std::string EncodeArtifactBundle(const ArtifactBundle& bundle) {
  nlohmann::json skipped = nlohmann::json::array();
  for (const SkippedFile& s : bundle.skipped) {
    skipped.push_back({{"name", s.name}, {"bytes", s.bytes}, {"reason", s.reason}});
  }
  return nlohmann::json{{"files", bundle.files}, {"skipped", skipped}}.dump();
}

StatusOr<ArtifactBundle> DecodeArtifactBundle(const std::string& text) {
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || !json.value("files", nlohmann::json()).is_object() ||
      !json.value("skipped", nlohmann::json()).is_array()) {
    return Status::InvalidArgument("artifact bundle: expected {\"files\": {...}, \"skipped\": [...]}");
  }
  ArtifactBundle bundle;
  for (const auto& [name, content] : json["files"].items()) {
    if (!IsPortableFileName(name) || !content.is_string()) {
      return Status::InvalidArgument("artifact bundle: files." + name.substr(0, 64) +
                                     ": expected a portable file name ([-._a-zA-Z0-9]+) with text");
    }
    bundle.files[name] = content.get<std::string>();
  }
  for (const nlohmann::json& s : json["skipped"]) {
    if (!s.is_object() || !s.value("name", nlohmann::json()).is_string() ||
        !s.value("bytes", nlohmann::json()).is_number_integer() || !s.value("reason", nlohmann::json()).is_string()) {
      return Status::InvalidArgument("artifact bundle: skipped: expected {name, bytes, reason}");
    }
    bundle.skipped.push_back({s["name"].get<std::string>(), s["bytes"].get<int64_t>(), s["reason"].get<std::string>()});
  }
  return bundle;
}

}  // namespace ergobench

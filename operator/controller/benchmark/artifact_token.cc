#include "operator/controller/benchmark/artifact_token.h"

#include <openssl/rand.h>

#include <array>

#include "base/hmac_sha256.h"
#include "base/text_scan.h"
#include "kube/client/api_error.h"
#include "kube/client/kube_config.h"
#include "kube/client/resource.h"
#include "operator/controller/benchmark/builders.h"

namespace ergobench::controller {
namespace {

using nlohmann::json;

constexpr size_t kKeyHexDigits = 64;
constexpr char kKeyField[] = "key";

bool IsKey(const std::string& key) { return key.size() == kKeyHexDigits && AllOf(key, IsLowerHexDigit); }

}  // namespace

std::string ArtifactTokenSecretName(const Benchmark& benchmark) {
  return benchmark.metadata.name + "-artifacts-" + benchmark.metadata.uid;
}

std::string ArtifactToken(std::string_view key, std::string_view benchmark_uid) {
  // Domain-separated, should the key ever sign anything else.
  return HmacSha256Hex(key, "ergobench artifacts\n" + std::string(benchmark_uid));
}

json BuildArtifactTokenSecret(const Benchmark& benchmark, const std::string& token) {
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", ChildMetadata(benchmark, ArtifactTokenSecretName(benchmark))},
          {"type", "Opaque"},
          {"immutable", true},
          {"stringData", {{kArtifactTokenFile, token}}}};
}

StatusOr<std::string> ArtifactKeySource::Key() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!key_) {
    ASSIGN_OR_RETURN(std::string key, ReadOrMake());
    key_ = std::move(key);
  }
  return *key_;
}

StatusOr<std::string> ArtifactKeySource::TokenFor(const std::string& benchmark_uid) {
  ASSIGN_OR_RETURN(const std::string key, Key());
  return ArtifactToken(key, benchmark_uid);
}

StatusOr<std::string> ArtifactKeySource::ReadOrMake() {
  const std::string where = "the artifact key Secret " + ns_ + "/" + name_;
  auto existing = client_->Get(kube::Secrets(), ns_, name_);
  if (kube::IsNotFound(existing.status())) {
    std::array<unsigned char, kKeyHexDigits / 2> bytes{};
    if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
      return Status::Internal("no randomness for " + where);
    }
    const json secret = {{"apiVersion", "v1"},
                         {"kind", "Secret"},
                         {"metadata", {{"name", name_}, {"namespace", ns_}, {"labels", {{"app.kubernetes.io/name", "ergobench-operator"}}}}},
                         {"type", "Opaque"},
                         {"immutable", true},
                         {"stringData", {{kKeyField, LowerHex(bytes.data(), bytes.size())}}}};
    auto created = client_->Create(kube::Secrets(), ns_, secret);
    // Another replica made it first: theirs is the key.
    existing = kube::IsAlreadyExists(created.status()) ? client_->Get(kube::Secrets(), ns_, name_) : created;
  }
  if (!existing.ok()) return existing.status().WithContext("read " + where);
  const json& data = (*existing)["data"];
  if (!data.is_object() || !data.contains(kKeyField) || !data[kKeyField].is_string()) {
    return Status::FailedPrecondition(where + " has no data." + kKeyField);
  }
  StatusOr<std::string> key = kube::DecodeBase64(data[kKeyField].get<std::string>());
  if (!key.ok() || !IsKey(*key)) {
    return Status::FailedPrecondition(where + ": data." + kKeyField + " is not " + std::to_string(kKeyHexDigits) +
                                      " lowercase hex digits");
  }
  return key;
}

}  // namespace ergobench::controller

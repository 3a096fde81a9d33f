// The token that guards rank 0's files (runner/artifact_shelf.h). On a cluster any pod can reach
// rank 0's metrics port, and those files are a tenant's results: rank 0 serves and releases them
// only to a request that carries its Benchmark's token, which only the operator and rank 0 hold.
//
// A Benchmark's token is HMAC-SHA256(the operator's key, the Benchmark's uid). The operator
// derives it again whenever it needs it, so it never reads a tenant's Secret back (its RBAC has
// no get on Secrets outside its own namespace), and one Benchmark's token says nothing of
// another's. The token is per Benchmark, not per gang: every gang of a Benchmark is its tenant's.
//
//   Secret <name>-artifacts-<uid>    token: mounted on rank 0 only (--artifact-token-file)
//   Secret <key> in the operator's   key: 64 hex digits from the OS's randomness, made by the
//     own namespace                  first replica that needs it, read by the others
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "api/v1alpha1/benchmark.h"
#include "base/status.h"
#include "kube/client/client.h"

namespace ergobench::controller {

inline constexpr char kArtifactTokenMountPath[] = "/var/run/ergobench/artifacts";
inline constexpr char kArtifactTokenFile[] = "token";
inline constexpr char kDefaultArtifactKeySecret[] = "ergobench-artifact-key";

// The name holds the uid: a namesake Benchmark gets a Secret of its own, so an existing one of
// this name is this Benchmark's, with no need to read it.
std::string ArtifactTokenSecretName(const Benchmark& benchmark);

// 64 lowercase hex digits.
std::string ArtifactToken(std::string_view key, std::string_view benchmark_uid);

// The Secret rank 0 mounts; immutable, owned by the Benchmark.
nlohmann::json BuildArtifactTokenSecret(const Benchmark& benchmark, const std::string& token);

// The operator's key, read from (or, the first time, made in) Secret `ns`/`name`, then kept.
// Thread-safe. An error (the API server unreachable, a key that is not 64 hex digits) is
// returned, and the next call tries again.
class ArtifactKeySource {
 public:
  ArtifactKeySource(kube::KubeClient* client, std::string ns, std::string name)
      : client_(client), ns_(std::move(ns)), name_(std::move(name)) {}

  StatusOr<std::string> Key();
  StatusOr<std::string> TokenFor(const std::string& benchmark_uid);

 private:
  StatusOr<std::string> ReadOrMake();

  kube::KubeClient* const client_;
  const std::string ns_;
  const std::string name_;
  std::mutex mutex_;
  std::optional<std::string> key_;
};

}  // namespace ergobench::controller

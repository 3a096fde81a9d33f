// ArtifactShelf: rank 0's output directory (the mllog, task 0a's tables, the summary) offered
// to the operator once the run has ended. On Kubernetes that directory is an emptyDir, gone
// with the pod; so rank 0 lingers, serving the bundle on its metrics port, until the operator
// has taken it and releases the rank, or until the linger time is up.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "api/contract/artifact_bundle.h"
#include "base/metrics_server.h"

namespace ergobench {

// The files of `dir` as a bundle, smallest first until `max_bytes` of content: a file that
// does not fit, is not UTF-8 text, is not a regular file or has a name a ConfigMap cannot
// hold is skipped, with the reason. A directory that does not exist gives an empty bundle.
ArtifactBundle ReadArtifactDir(const std::string& dir, int64_t max_bytes);

// The token of --artifact-token-file (a Secret's file on Kubernetes), without the line end.
// No path: no token (a local run serves no one but its own host). A file that cannot be read,
// is empty, over 4 KiB or not printable ASCII is an error naming the flag.
StatusOr<std::string> ReadArtifactToken(const std::string& path);

class ArtifactShelf {
 public:
  // What the operator fetches in one answer, at most (it reads up to 16 MiB of JSON).
  static constexpr int64_t kMaxBytes = 4 << 20;

  // With a `token`, only a request that carries it (Authorization: Bearer <token>) is served:
  // on a cluster any pod can reach rank 0's port, and its files are another tenant's results.
  explicit ArtifactShelf(std::string dir, std::string token = "") : dir_(std::move(dir)), token_(std::move(token)) {}

  // The routes for MetricsServer: GET kArtifactsPath, POST kArtifactsReleasePath; both 401
  // without the token, then 409 until Offer().
  std::optional<HttpReply> Answer(const RouteRequest& request);

  // Reads the directory, once the run has written everything, and serves it from now on.
  void Offer();

  // Until a release, `linger`, or `stopped()` (polled every 100 ms). Says which: "released",
  // "nobody took them within <linger>", "stopped".
  std::string WaitForRelease(std::chrono::milliseconds linger, const std::function<bool()>& stopped);

 private:
  bool Authorized(std::string_view authorization) const;

  const std::string dir_;
  const std::string token_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<std::string> bundle_;  // encoded, once offered
  bool released_ = false;
};

}  // namespace ergobench

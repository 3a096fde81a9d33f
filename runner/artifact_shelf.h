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

#include "api/artifact_bundle.h"
#include "base/metrics_server.h"

namespace ergobench {

// The files of `dir` as a bundle, smallest first until `max_bytes` of content: a file that
// does not fit, is not UTF-8 text, is not a regular file or has a name a ConfigMap cannot
// hold is skipped, with the reason. A directory that does not exist gives an empty bundle.
ArtifactBundle ReadArtifactDir(const std::string& dir, int64_t max_bytes);

class ArtifactShelf {
 public:
  // What the operator fetches in one answer, at most (it reads up to 16 MiB of JSON).
  static constexpr int64_t kMaxBytes = 4 << 20;

  explicit ArtifactShelf(std::string dir) : dir_(std::move(dir)) {}

  // The routes for MetricsServer: GET kArtifactsPath, POST kArtifactsReleasePath; both 409
  // until Offer().
  std::optional<HttpReply> Answer(std::string_view method, std::string_view path);

  // Reads the directory, once the run has written everything, and serves it from now on.
  void Offer();

  // Until a release, `linger`, or `stopped()` (polled every 100 ms). Says which: "released",
  // "nobody took them within <linger>", "stopped".
  std::string WaitForRelease(std::chrono::milliseconds linger, const std::function<bool()>& stopped);

 private:
  const std::string dir_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<std::string> bundle_;  // encoded, once offered
  bool released_ = false;
};

}  // namespace ergobench

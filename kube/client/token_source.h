// The bearer token for each request: a fixed one, or one read from a file and read again
// whenever the file changes, because the kubelet rotates projected service-account tokens
// (about hourly) and a token read once at start-up expires under a long-running operator.
#pragma once

#include <ctime>
#include <mutex>
#include <string>

#include "base/status.h"

namespace ergobench::kube {

class TokenSource {
 public:
  TokenSource(std::string token, std::string token_file)
      : token_(std::move(token)), token_file_(std::move(token_file)) {}

  // Empty when neither a token nor a file is configured.
  StatusOr<std::string> Token();

 private:
  std::mutex mutex_;
  std::string token_;
  std::string token_file_;
  timespec file_mtime_{};
  off_t file_size_ = -1;
};

}  // namespace ergobench::kube

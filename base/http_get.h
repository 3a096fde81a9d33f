// A bounded HTTP GET for scraping a pod's /metrics: one deadline for the whole exchange
// (connect, request, response), not per read, and a cap on the body. A pod that trickles its
// answer or sends an endless one costs the caller at most the deadline.
#pragma once

#include <chrono>
#include <string>

#include "base/status.h"

namespace ergobench {

struct HttpGetOptions {
  std::chrono::milliseconds deadline{2000};
  size_t max_body_bytes = 4 << 20;
  std::string bearer_token{};  // sent as "Authorization: Bearer <token>" when set
};

// GET http://host:port/path. `host` is an IP address (v4, or v6 without brackets). A non-200
// answer, a body over the cap and a missed deadline are errors that say which.
StatusOr<std::string> HttpGet(const std::string& host, int port, const std::string& path, HttpGetOptions options = {});
// The same for any method ("POST": an empty body), e.g. to tell a rank it may exit.
StatusOr<std::string> HttpRequest(const std::string& method, const std::string& host, int port,
                                  const std::string& path, HttpGetOptions options = {});

}  // namespace ergobench

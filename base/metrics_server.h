// MetricsServer: the HTTP endpoint of the runner and the operator. GET /metrics returns the
// Prometheus text format, GET /healthz returns "ok", GET /readyz returns 200 while `ready`
// says so and 503 otherwise, so that the probes live on the metrics port; a caller may add
// routes (the runner's artifacts). An HTTP/1.1 server on Boost.Beast, on two threads.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace ergobench {

// What one client may take of the server. A client past a limit is answered with an error or
// dropped; the others never wait for it.
struct HttpServerLimits {
  // To receive one request, from the end of the last one (idle keep-alive time included): a
  // client that trickles its request is dropped when this runs out, whatever its pace.
  std::chrono::milliseconds request_timeout{10000};
  // To send one response: a client that does not read is dropped when this runs out.
  std::chrono::milliseconds write_timeout{10000};
  size_t max_header_bytes = 8192;  // over it: 431
  size_t max_body_bytes = 4096;    // over it: 413 (every route is GET)
  int max_connections = 256;       // more are closed at once
  // Of those, from one address: one client cannot take them all from Prometheus, the kubelet's
  // probes and the operator.
  int max_connections_per_peer = 64;
};

// An answer of a route beyond /metrics and the probes.
struct HttpReply {
  using Headers = std::vector<std::pair<std::string, std::string>>;
  HttpReply() = default;
  HttpReply(int status_code, std::string type, std::string text, Headers more = {})
      : status(status_code), content_type(std::move(type)), body(std::move(text)), headers(std::move(more)) {}

  int status = 200;
  std::string content_type = "text/plain";
  std::string body;
  Headers headers;  // fields beyond Content-Type: WWW-Authenticate on a 401
};

// What a route sees of a request: its method ("GET", "POST", ...), its path, its query (after
// the '?', "" when none) and its Authorization header ("" when it has none).
struct RouteRequest {
  std::string_view method;
  std::string_view path;
  std::string_view authorization;
  std::string_view query{};
};

// Routes beyond /metrics and the probes: the answer to a request, or nothing for 404. Called
// on the server's threads.
using ExtraRoutes = std::function<std::optional<HttpReply>(const RouteRequest& request)>;

class MetricsServer {
 public:
  // Port 0 picks a free port (see port()). A port already in use is a FailedPrecondition
  // naming it.
  static StatusOr<std::unique_ptr<MetricsServer>> Start(const std::string& bind_address, int port,
                                                        std::function<std::string()> render_metrics,
                                                        std::function<bool()> ready = nullptr,
                                                        HttpServerLimits limits = {}, ExtraRoutes extra = nullptr);
  ~MetricsServer();

  int port() const { return port_; }

 private:
  struct Impl;
  MetricsServer(std::unique_ptr<Impl> impl, int port);
  std::unique_ptr<Impl> impl_;
  int port_;
};

}  // namespace ergobench

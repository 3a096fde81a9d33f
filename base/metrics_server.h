// MetricsServer: the HTTP endpoint of the runner and the operator. GET /metrics returns the
// Prometheus text format, GET /healthz returns "ok", GET /readyz returns 200 while `ready`
// says so and 503 otherwise, so that the probes live on the metrics port. A small HTTP/1.1
// server of its own, on one thread.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "base/status.h"

namespace ergobench {

class MetricsServer {
 public:
  // Port 0 picks a free port (see port()). A port already in use is a FailedPrecondition
  // naming it.
  static StatusOr<std::unique_ptr<MetricsServer>> Start(const std::string& bind_address, int port,
                                                        std::function<std::string()> render_metrics,
                                                        std::function<bool()> ready = nullptr);
  ~MetricsServer();

  int port() const { return port_; }

 private:
  struct Impl;
  MetricsServer(std::unique_ptr<Impl> impl, int port);
  std::unique_ptr<Impl> impl_;
  int port_;
};

}  // namespace ergobench

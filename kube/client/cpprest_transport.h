// HttpTransport over cpprestsdk: TLS with certificate and host-name verification on, the
// cluster CA and client certificate from KubeConfig, and a bearer token on every request.
// This file's .cc is the only place in ergobench that includes cpprestsdk.
#pragma once

#include <chrono>
#include <memory>

#include "kube/client/http_transport.h"
#include "kube/client/kube_config.h"

namespace ergobench::kube {

struct TransportOptions {
  std::chrono::seconds request_timeout{30};
  // Must outlast the server-side watch timeout, or healthy quiet watches get cut.
  std::chrono::seconds stream_inactivity_timeout{330};
};

StatusOr<std::unique_ptr<HttpTransport>> NewCpprestTransport(const KubeConfig& config,
                                                             const TransportOptions& options = {});

}  // namespace ergobench::kube

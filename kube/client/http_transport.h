// The HTTP exchange the Kubernetes client needs, behind an interface: the real one is
// cpprestsdk (cpprest_transport.h); unit tests script one. Paths are relative to the API
// server's base URL; authentication is the transport's business.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace ergobench::kube {

struct HttpRequest {
  std::string method;  // GET | POST | PUT | PATCH | DELETE
  std::string path;    // "/api/v1/namespaces/ns/pods?labelSelector=..."
  std::string body;
  std::string content_type = "application/json";
};

struct HttpResponse {
  int status = 0;
  std::string body;
};

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;

  // Errors are transport failures (connection refused, TLS, timeout); an HTTP error status
  // is a response.
  virtual StatusOr<HttpResponse> Send(const HttpRequest& request) = 0;

  // For a 200 response, hands the body to on_chunk as it arrives and returns a response
  // with an empty body when the stream ends; on_chunk returning an error stops the stream
  // with that error. Any other status is returned with its whole body.
  virtual StatusOr<HttpResponse> Stream(const HttpRequest& request,
                                        const std::function<Status(std::string_view chunk)>& on_chunk) = 0;

  // Aborts requests in flight and refuses new ones; for shutdown.
  virtual void Shutdown() = 0;
};

}  // namespace ergobench::kube

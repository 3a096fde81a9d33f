#include "api/metrics_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include <CivetServer.h>

namespace ergobench {
namespace {

class TextHandler : public CivetHandler {
 public:
  TextHandler(std::string content_type, std::function<std::string()> body, std::function<bool()> ok = nullptr)
      : content_type_(std::move(content_type)), body_(std::move(body)), ok_(std::move(ok)) {}

  bool handleGet(CivetServer*, mg_connection* connection) override {
    const bool ok = !ok_ || ok_();
    const std::string body = ok ? body_() : std::string("not ready\n");
    mg_printf(connection,
              "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
              ok ? "200 OK" : "503 Service Unavailable", content_type_.c_str(), body.size());
    mg_write(connection, body.data(), body.size());
    return true;
  }

 private:
  std::string content_type_;
  std::function<std::string()> body_;
  std::function<bool()> ok_;
};

// civetweb only says "could not start"; probing the port ourselves tells a user why.
bool PortInUse(const std::string& bind_address, int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, bind_address.c_str(), &addr.sin_addr);
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  const bool in_use = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 && errno == EADDRINUSE;
  close(fd);
  return in_use;
}

}  // namespace

struct MetricsServer::Impl {
  // Declared before the server so that they outlive it.
  std::unique_ptr<TextHandler> metrics;
  std::unique_ptr<TextHandler> health;
  std::unique_ptr<TextHandler> readiness;
  std::unique_ptr<CivetServer> server;
};

MetricsServer::MetricsServer(std::unique_ptr<Impl> impl, int port) : impl_(std::move(impl)), port_(port) {}

MetricsServer::~MetricsServer() = default;

StatusOr<std::unique_ptr<MetricsServer>> MetricsServer::Start(const std::string& bind_address, int port,
                                                              std::function<std::string()> render_metrics,
                                                              std::function<bool()> ready) {
  const std::string where = bind_address + ":" + std::to_string(port);
  if (port != 0 && PortInUse(bind_address, port)) {
    return Status::FailedPrecondition("metrics port " + std::to_string(port) + " is already in use (" + where + ")");
  }
  auto impl = std::make_unique<Impl>();
  const std::vector<std::string> options = {"listening_ports", where, "num_threads", "2"};
  try {
    impl->server = std::make_unique<CivetServer>(options);
  } catch (const std::exception& e) {
    return Status::FailedPrecondition("cannot serve metrics on " + where + ": " + e.what());
  }
  impl->metrics = std::make_unique<TextHandler>("text/plain; version=0.0.4; charset=utf-8", std::move(render_metrics));
  impl->health = std::make_unique<TextHandler>("text/plain", [] { return std::string("ok\n"); });
  impl->server->addHandler("/metrics", impl->metrics.get());
  impl->readiness = std::make_unique<TextHandler>("text/plain", [] { return std::string("ok\n"); }, std::move(ready));
  impl->server->addHandler("/healthz", impl->health.get());
  impl->server->addHandler("/readyz", impl->readiness.get());
  std::vector<int> ports = impl->server->getListeningPorts();
  const int bound = ports.empty() ? port : ports.front();
  return std::unique_ptr<MetricsServer>(new MetricsServer(std::move(impl), bound));
}

}  // namespace ergobench

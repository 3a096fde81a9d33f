#include "base/metrics_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace ergobench {
namespace {

// A client that sends no complete request in this long is dropped, so it cannot hold up
// the scrapes and probes behind it (connections are served one at a time).
constexpr int kRequestTimeoutMs = 2000;
constexpr size_t kMaxRequestBytes = 8192;

void SendAll(int fd, const std::string& data) {
  for (size_t sent = 0; sent < data.size();) {
    const ssize_t n = send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;
    sent += static_cast<size_t>(n);
  }
}

// The request line's method and path, once the headers have arrived; empty on a timeout,
// a closed connection or an oversized request.
bool ReadRequestLine(int fd, std::string* method, std::string* path) {
  timeval timeout{kRequestTimeoutMs / 1000, (kRequestTimeoutMs % 1000) * 1000};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  std::string request;
  char buffer[1024];
  while (request.find("\r\n\r\n") == std::string::npos && request.find("\n\n") == std::string::npos) {
    if (request.size() > kMaxRequestBytes) return false;
    const ssize_t n = recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return false;
    request.append(buffer, static_cast<size_t>(n));
  }
  const size_t method_end = request.find(' ');
  const size_t path_end = request.find_first_of(" \r\n", method_end + 1);
  if (method_end == std::string::npos || path_end == std::string::npos) return false;
  *method = request.substr(0, method_end);
  *path = request.substr(method_end + 1, path_end - method_end - 1);
  *path = path->substr(0, path->find('?'));
  return true;
}

std::string Response(const char* status, const char* content_type, const std::string& body, bool head) {
  return std::string("HTTP/1.1 ") + status + "\r\nContent-Type: " + content_type +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + (head ? "" : body);
}

}  // namespace

// One thread accepts and answers connections in turn: scrapes and probes are few and small.
// It is a std::thread, with the default 8 MiB stack: libraries with large static TLS
// (OpenBLAS brings 60 KiB) leave no room in the 100 KiB thread stacks civetweb asked for,
// and its threads then failed to start.
struct MetricsServer::Impl {
  int listen_fd = -1;
  int wake[2] = {-1, -1};  // a byte on wake[1] stops the thread
  std::function<std::string()> render_metrics;
  std::function<bool()> ready;
  std::thread thread;

  ~Impl() {
    if (thread.joinable()) {
      const char stop = 1;
      [[maybe_unused]] const ssize_t written = write(wake[1], &stop, 1);  // an empty, open pipe takes it
      thread.join();
    }
    for (int fd : {listen_fd, wake[0], wake[1]}) {
      if (fd >= 0) close(fd);
    }
  }

  void Serve() {
    for (;;) {
      pollfd fds[2] = {{listen_fd, POLLIN, 0}, {wake[0], POLLIN, 0}};
      if (poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[1].revents != 0) return;
      const int client = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (client < 0) continue;
      Answer(client);
      close(client);
    }
  }

  void Answer(int fd) {
    std::string method, path;
    if (!ReadRequestLine(fd, &method, &path)) return;
    const bool head = method == "HEAD";
    if (method != "GET" && !head) {
      SendAll(fd, Response("405 Method Not Allowed", "text/plain", "GET only\n", false));
    } else if (path == "/metrics") {
      SendAll(fd, Response("200 OK", "text/plain; version=0.0.4; charset=utf-8", render_metrics(), head));
    } else if (path == "/healthz") {
      SendAll(fd, Response("200 OK", "text/plain", "ok\n", head));
    } else if (path == "/readyz") {
      const bool ok = !ready || ready();
      SendAll(fd, Response(ok ? "200 OK" : "503 Service Unavailable", "text/plain", ok ? "ok\n" : "not ready\n", head));
    } else {
      SendAll(fd, Response("404 Not Found", "text/plain", "not found: /metrics, /healthz, /readyz\n", head));
    }
  }
};

MetricsServer::MetricsServer(std::unique_ptr<Impl> impl, int port) : impl_(std::move(impl)), port_(port) {}

MetricsServer::~MetricsServer() = default;

StatusOr<std::unique_ptr<MetricsServer>> MetricsServer::Start(const std::string& bind_address, int port,
                                                              std::function<std::string()> render_metrics,
                                                              std::function<bool()> ready) {
  const std::string where = bind_address + ":" + std::to_string(port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (getaddrinfo(bind_address.c_str(), std::to_string(port).c_str(), &hints, &found) != 0 || found == nullptr) {
    return Status::InvalidArgument("metrics bind address \"" + bind_address + "\" is not an IP address");
  }
  auto impl = std::make_unique<Impl>();
  impl->render_metrics = std::move(render_metrics);
  impl->ready = std::move(ready);
  impl->listen_fd = socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  setsockopt(impl->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  const bool bound = impl->listen_fd >= 0 && bind(impl->listen_fd, found->ai_addr, found->ai_addrlen) == 0;
  const int bind_error = errno;
  freeaddrinfo(found);
  if (!bound) {
    if (bind_error == EADDRINUSE) {
      return Status::FailedPrecondition("metrics port " + std::to_string(port) + " is already in use (" + where + ")");
    }
    return Status::FailedPrecondition("cannot serve metrics on " + where + ": " + std::strerror(bind_error));
  }
  if (listen(impl->listen_fd, 64) != 0 || pipe2(impl->wake, O_CLOEXEC) != 0) {
    return Status::FailedPrecondition("cannot serve metrics on " + where + ": " + std::strerror(errno));
  }
  sockaddr_storage local{};
  socklen_t length = sizeof local;
  getsockname(impl->listen_fd, reinterpret_cast<sockaddr*>(&local), &length);
  const int bound_port = ntohs(local.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&local)->sin6_port
                                                           : reinterpret_cast<sockaddr_in*>(&local)->sin_port);
  Impl* serving = impl.get();
  impl->thread = std::thread([serving] { serving->Serve(); });
  return std::unique_ptr<MetricsServer>(new MetricsServer(std::move(impl), bound_port));
}

}  // namespace ergobench

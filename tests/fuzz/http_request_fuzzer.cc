// Requests to the /metrics, /healthz and /readyz server, with rank 0's token-guarded
// /artifacts routes (runner/artifact_shelf.h), sent over a real socket: any bytes, then the end
// of input. The server must answer or close, and go on serving.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <memory>
#include <string>

#include "base/metrics_server.h"
#include "runner/artifact_shelf.h"

namespace {

int Connect(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    int error = errno;
    if (error == EINTR) {
      // libFuzzer's timer signal interrupted it; the connection goes on being made.
      pollfd writable{fd, POLLOUT, 0};
      socklen_t length = sizeof error;
      error = poll(&writable, 1, 5000) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 ? error
                                                                                                          : ETIMEDOUT;
    }
    if (error != 0) {
      std::fprintf(stderr, "connect: %s\n", std::strerror(error));
      std::abort();  // the server stopped accepting
    }
  }
  timeval timeout{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  return fd;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static ergobench::ArtifactShelf shelf("/nonexistent", "fuzz-token");
  static std::unique_ptr<ergobench::MetricsServer> server = [] {
    ergobench::HttpServerLimits limits;
    limits.request_timeout = std::chrono::milliseconds(2000);
    shelf.Offer();
    auto started = ergobench::MetricsServer::Start(
        "127.0.0.1", 0, [] { return std::string("x 1\n"); }, [] { return true; }, limits,
        [](const ergobench::RouteRequest& request) { return shelf.Answer(request); });
    if (!started.ok()) std::abort();
    return std::move(started).value();
  }();
  const int fd = Connect(server->port());
  for (size_t sent = 0; sent < size;) {
    const ssize_t n = send(fd, data + sent, size - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server refused more (a limit) and closed
    sent += static_cast<size_t>(n);
  }
  shutdown(fd, SHUT_WR);
  char buffer[4096];
  ssize_t n;
  while ((n = read(fd, buffer, sizeof buffer)) > 0) {
  }
  const int error = errno;
  // The server has closed its side: end ours with a reset, not TIME_WAIT, or a fuzzing run
  // exhausts the ephemeral ports in a minute (the connect above then fails).
  const linger abortive{1, 0};
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &abortive, sizeof abortive);
  close(fd);
  if (n < 0 && (error == EAGAIN || error == EWOULDBLOCK)) std::abort();  // neither answer nor close in 5 s: a hang
  return 0;
}

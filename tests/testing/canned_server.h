// A TCP server on a free port of 127.0.0.1 that answers each client with the same bytes, for
// tests of clients (an sshd's greeting, an HTTP redirect). With `after_request`, it first reads
// the client's request, up to the blank line that ends HTTP headers.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <utility>

namespace ergobench::testing {

class CannedServer {
 public:
  explicit CannedServer(std::string answer, bool after_request = false)
      : answer_(std::move(answer)), after_request_(after_request) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address);
    socklen_t length = sizeof address;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    listen(fd_, 8);
    thread_ = std::thread([this] { Serve(); });
  }
  ~CannedServer() {
    stop_ = true;
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  CannedServer(const CannedServer&) = delete;
  CannedServer& operator=(const CannedServer&) = delete;

  int port() const { return port_; }

 private:
  void Serve() {
    while (true) {
      const int client = accept(fd_, nullptr, nullptr);
      if (client < 0 || stop_) break;
      std::string request;
      char buffer[4096];
      while (after_request_ && request.find("\r\n\r\n") == std::string::npos) {
        const ssize_t n = read(client, buffer, sizeof buffer);
        if (n <= 0) break;
        request.append(buffer, static_cast<size_t>(n));
      }
      [[maybe_unused]] const ssize_t n = write(client, answer_.data(), answer_.size());
      close(client);
    }
  }

  const std::string answer_;
  const bool after_request_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace ergobench::testing

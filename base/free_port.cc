#include "base/free_port.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace ergobench {

StatusOr<ReservedPort> ReservedPort::Reserve(const char* address) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::Unavailable(std::string("socket: ") + std::strerror(errno));
  const int on = 1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = 0;
  socklen_t length = sizeof addr;
  if (inet_pton(AF_INET, address, &addr.sin_addr) != 1) {
    close(fd);
    return Status::InvalidArgument(std::string("not an IPv4 address: ") + address);
  }
  if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0 ||
      bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) != 0) {
    const std::string error = std::strerror(errno);
    close(fd);
    return Status::Unavailable("cannot find a free port on " + std::string(address) + ": " + error);
  }
  return ReservedPort(fd, static_cast<int>(ntohs(addr.sin_port)));
}

ReservedPort::ReservedPort(ReservedPort&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), port_(other.port_) {}

ReservedPort& ReservedPort::operator=(ReservedPort&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    port_ = other.port_;
  }
  return *this;
}

ReservedPort::~ReservedPort() {
  if (fd_ >= 0) close(fd_);
}

StatusOr<int> FreePort(const char* address) {
  ASSIGN_OR_RETURN(const ReservedPort reserved, ReservedPort::Reserve(address));
  return reserved.port();
}

}  // namespace ergobench

#include "base/free_port.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ergobench {

StatusOr<int> FreePort(const char* address) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return Status::Unavailable(std::string("socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = 0;
  inet_pton(AF_INET, address, &addr.sin_addr);
  socklen_t length = sizeof addr;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) != 0) {
    const std::string error = std::strerror(errno);
    close(fd);
    return Status::Unavailable("cannot find a free port on " + std::string(address) + ": " + error);
  }
  close(fd);
  return static_cast<int>(ntohs(addr.sin_port));
}

}  // namespace ergobench

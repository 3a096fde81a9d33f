#include "base/free_port.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace ergobench {
namespace {

// A TCP socket on 127.0.0.1:port; 0 when bind fails (with errno set), else its fd.
int BindLoopback(int port, bool reuse_address) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  const int on = 1;
  if (reuse_address) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    const int error = errno;
    close(fd);
    errno = error;
    return 0;
  }
  return fd;
}

bool Connects(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  const bool connected = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return connected;
}

TEST(ReservedPortTest, NoPlainBindTakesTheHeldPort) {
  StatusOr<ReservedPort> reserved = ReservedPort::Reserve();
  ASSERT_TRUE(reserved.ok()) << reserved.status().ToString();
  EXPECT_GT(reserved->port(), 0);
  EXPECT_EQ(BindLoopback(reserved->port(), /*reuse_address=*/false), 0);
  EXPECT_EQ(errno, EADDRINUSE);
}

TEST(ReservedPortTest, NobodyAnswersOnItUntilAServerListens) {
  StatusOr<ReservedPort> reserved = ReservedPort::Reserve();
  ASSERT_TRUE(reserved.ok());
  EXPECT_FALSE(Connects(reserved->port()));
}

// What a rendezvous server (c10d's TCPStore) does on the port the launcher chose.
TEST(ReservedPortTest, AServerThatReusesAddressesListensOnIt) {
  StatusOr<ReservedPort> reserved = ReservedPort::Reserve();
  ASSERT_TRUE(reserved.ok());
  const int server = BindLoopback(reserved->port(), /*reuse_address=*/true);
  ASSERT_NE(server, 0) << std::strerror(errno);
  ASSERT_EQ(listen(server, 1), 0) << std::strerror(errno);
  EXPECT_TRUE(Connects(reserved->port()));
  close(server);
}

TEST(ReservedPortTest, ReleasedWhenDestroyedAndNotBeforeWhenMoved) {
  int port = 0;
  {
    StatusOr<ReservedPort> reserved = ReservedPort::Reserve();
    ASSERT_TRUE(reserved.ok());
    port = reserved->port();
    ReservedPort moved = std::move(reserved).value();
    EXPECT_EQ(moved.port(), port);
    EXPECT_EQ(BindLoopback(port, false), 0) << "the moved-from reservation let go of the port";
  }
  const int fd = BindLoopback(port, false);
  EXPECT_NE(fd, 0) << std::strerror(errno);
  close(fd);
}

TEST(ReservedPortTest, AnAddressThatIsNotIpv4IsRefusedByName) {
  StatusOr<ReservedPort> reserved = ReservedPort::Reserve("master.example");
  ASSERT_FALSE(reserved.ok());
  EXPECT_EQ(reserved.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(reserved.status().message().find("master.example"), std::string::npos);
}

}  // namespace
}  // namespace ergobench

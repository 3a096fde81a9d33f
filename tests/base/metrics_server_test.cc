#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "base/metrics_server.h"

namespace ergobench {
namespace {

int Connect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Sends `request` to loopback: the whole response, headers included.
std::string Http(int port, const std::string& request) {
  const int fd = Connect(port);
  if (fd < 0) return "";
  EXPECT_EQ(write(fd, request.data(), request.size()), static_cast<ssize_t>(request.size()));
  std::string response;
  char buffer[4096];
  for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) > 0;) response.append(buffer, n);
  close(fd);
  return response;
}

std::string HttpGet(int port, const std::string& path) {
  return Http(port, "GET " + path + " HTTP/1.0\r\nHost: localhost\r\n\r\n");
}

TEST(MetricsServerTest, ServesMetricsAndHealth) {
  auto server = MetricsServer::Start("127.0.0.1", 0, [] { return std::string("ergobench_samples_total{rank=\"0\"} 3\n"); });
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  ASSERT_GT((*server)->port(), 0);
  const std::string scrape = HttpGet((*server)->port(), "/metrics");
  EXPECT_NE(scrape.find("200 OK"), std::string::npos) << scrape;
  EXPECT_NE(scrape.find("text/plain; version=0.0.4"), std::string::npos);
  EXPECT_NE(scrape.find("\r\n\r\nergobench_samples_total{rank=\"0\"} 3\n"), std::string::npos) << scrape;
  const std::string health = HttpGet((*server)->port(), "/healthz");
  EXPECT_NE(health.find("200 OK"), std::string::npos);
  EXPECT_NE(health.find("\r\n\r\nok\n"), std::string::npos) << health;
}

TEST(MetricsServerTest, ReadinessFollowsItsProbe) {
  std::atomic<bool> ready{false};
  auto server = MetricsServer::Start("127.0.0.1", 0, [] { return std::string(); }, [&ready] { return ready.load(); });
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  EXPECT_NE(HttpGet((*server)->port(), "/readyz").find("503 Service Unavailable"), std::string::npos);
  ready = true;
  EXPECT_NE(HttpGet((*server)->port(), "/readyz").find("200 OK"), std::string::npos);
}

TEST(MetricsServerTest, UnknownPathsMethodsAndHead) {
  auto server = MetricsServer::Start("127.0.0.1", 0, [] { return std::string("x 1\n"); });
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  const int port = (*server)->port();
  EXPECT_NE(HttpGet(port, "/nope").find("404 Not Found"), std::string::npos);
  EXPECT_NE(HttpGet(port, "/metrics?name[]=x").find("\r\n\r\nx 1\n"), std::string::npos);
  EXPECT_NE(Http(port, "POST /metrics HTTP/1.0\r\n\r\n").find("405 Method Not Allowed"), std::string::npos);
  const std::string head = Http(port, "HEAD /metrics HTTP/1.0\r\n\r\n");
  EXPECT_NE(head.find("Content-Length: 4\r\n"), std::string::npos) << head;
  EXPECT_EQ(head.substr(head.size() - 4), "\r\n\r\n");  // no body
}

TEST(MetricsServerTest, AClientThatSaysNothingIsDroppedAndOthersAreServed) {
  auto server = MetricsServer::Start("127.0.0.1", 0, [] { return std::string("x 1\n"); });
  ASSERT_TRUE(server.ok());
  const int silent = Connect((*server)->port());
  ASSERT_GE(silent, 0);
  EXPECT_NE(HttpGet((*server)->port(), "/healthz").find("200 OK"), std::string::npos);
  close(silent);
}

TEST(MetricsServerTest, BadBindAddressIsNamed) {
  auto server = MetricsServer::Start("localhost.example", 0, [] { return std::string(); });
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.status().message(), "metrics bind address \"localhost.example\" is not an IP address");
}

TEST(MetricsServerTest, PortInUseIsNamed) {
  auto first = MetricsServer::Start("127.0.0.1", 0, [] { return std::string(); });
  ASSERT_TRUE(first.ok());
  const int port = (*first)->port();
  auto second = MetricsServer::Start("127.0.0.1", port, [] { return std::string(); });
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().message(),
            "metrics port " + std::to_string(port) + " is already in use (127.0.0.1:" + std::to_string(port) + ")");
}

}  // namespace
}  // namespace ergobench

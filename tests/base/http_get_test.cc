#include "base/http_get.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "base/metrics_server.h"

namespace ergobench {
namespace {

using Clock = std::chrono::steady_clock;

// A server on loopback that accepts one connection and answers with `answer`, one byte every
// `pace` (zero: all at once), then holds the connection until the test ends.
class ScriptedServer {
 public:
  ScriptedServer(std::string answer, std::chrono::milliseconds pace) : answer_(std::move(answer)), pace_(pace) {
    listen_fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    listen(listen_fd_, 1);
    socklen_t length = sizeof addr;
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &length);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~ScriptedServer() {
    done_ = true;
    shutdown(listen_fd_, SHUT_RDWR);
    thread_.join();
    close(listen_fd_);
  }
  int port() const { return port_; }

 private:
  void Serve() {
    const int fd = accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) return;
    char request[4096];
    [[maybe_unused]] const ssize_t n = read(fd, request, sizeof request);
    for (size_t i = 0; i < answer_.size() && !done_; ++i) {
      if (pace_.count() == 0) {
        [[maybe_unused]] const ssize_t sent = send(fd, answer_.data(), answer_.size(), MSG_NOSIGNAL);
        break;
      }
      if (send(fd, &answer_[i], 1, MSG_NOSIGNAL) != 1) break;
      std::this_thread::sleep_for(pace_);
    }
    while (!done_) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    close(fd);
  }

  std::string answer_;
  std::chrono::milliseconds pace_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

TEST(HttpGet, ReadsAPage) {
  auto server = MetricsServer::Start("127.0.0.1", 0, [] { return std::string("ergobench_epoch 3\n"); });
  ASSERT_TRUE(server.ok());
  auto page = HttpGet("127.0.0.1", (*server)->port(), "/metrics");
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(*page, "ergobench_epoch 3\n");
  auto missing = HttpGet("127.0.0.1", (*server)->port(), "/nope");
  EXPECT_EQ(missing.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(missing.status().message().find("HTTP 404"), std::string::npos);
}

TEST(HttpGet, PostsAndReadsTheRefusalsFirstLine) {
  std::string method;
  auto server = MetricsServer::Start(
      "127.0.0.1", 0, [] { return std::string(); }, nullptr, {},
      [&method](const RouteRequest& request) -> std::optional<HttpReply> {
        method = std::string(request.method);
        if (request.path == "/release") return HttpReply{200, "text/plain", "released\n"};
        return HttpReply{409, "text/plain", "not yet: still running\nsecond line\n"};
      });
  ASSERT_TRUE(server.ok());
  auto released = HttpRequest("POST", "127.0.0.1", (*server)->port(), "/release");
  ASSERT_TRUE(released.ok()) << released.status().ToString();
  EXPECT_EQ(*released, "released\n");
  EXPECT_EQ(method, "POST");
  auto refused = HttpRequest("POST", "127.0.0.1", (*server)->port(), "/other");
  EXPECT_EQ(refused.status().message(), "POST http://127.0.0.1:" + std::to_string((*server)->port()) +
                                            "/other: HTTP 409 not yet: still running");
  EXPECT_EQ(HttpRequest("FROB", "127.0.0.1", 80, "/").status().code(), StatusCode::kInvalidArgument);
}

// The audit's stall: cpprest's limit was an inactivity timeout, renewed by every byte, so a pod
// answering a byte every 100 ms held the scrape for as long as it liked.
TEST(HttpGet, ATricklingAnswerEndsAtTheDeadline) {
  ScriptedServer server("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + std::string(100000, 'x'),
                        std::chrono::milliseconds(100));
  const auto start = Clock::now();
  auto page = HttpGet("127.0.0.1", server.port(), "/metrics", {std::chrono::milliseconds(800), 1 << 20});
  const auto took = Clock::now() - start;
  EXPECT_EQ(page.status().code(), StatusCode::kDeadlineExceeded) << page.status().ToString();
  EXPECT_GE(took, std::chrono::milliseconds(700));
  EXPECT_LT(took, std::chrono::milliseconds(1500));
}

TEST(HttpGet, AnOversizedAnswerIsRefused) {
  ScriptedServer server("HTTP/1.1 200 OK\r\nContent-Length: 2000000\r\n\r\n" + std::string(2000000, 'x'),
                        std::chrono::milliseconds(0));
  auto page = HttpGet("127.0.0.1", server.port(), "/metrics", {std::chrono::milliseconds(5000), 1 << 20});
  EXPECT_EQ(page.status().code(), StatusCode::kOutOfRange) << page.status().ToString();
  EXPECT_NE(page.status().message().find("larger than 1048576 bytes"), std::string::npos);
}

TEST(HttpGet, ANameIsNotAnAddress) {
  EXPECT_EQ(HttpGet("pod.example", 80, "/metrics").status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ergobench

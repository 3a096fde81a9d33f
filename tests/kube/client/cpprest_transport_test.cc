#include "kube/client/cpprest_transport.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <string>
#include <thread>

namespace ergobench::kube {
namespace {

// A one-connection HTTP server on a loopback port that answers with a chunked body in the
// parts the test gives, each sent when the test says so: a watch stream, as the API server
// sends one.
class StreamingServer {
 public:
  StreamingServer() {
    listener_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    EXPECT_EQ(bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
    EXPECT_EQ(listen(listener_, 1), 0);
    getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
  }
  ~StreamingServer() {
    if (connection_ >= 0) close(connection_);
    close(listener_);
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // Accepts the request and sends the response head.
  void Accept() {
    connection_ = accept(listener_, nullptr, nullptr);
    char request[4096];
    std::string head;
    while (head.find("\r\n\r\n") == std::string::npos) {
      const ssize_t n = read(connection_, request, sizeof(request));
      if (n <= 0) return;
      head.append(request, n);
    }
    Send("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
  }

  void SendChunk(const std::string& data) {
    char size[32];
    snprintf(size, sizeof(size), "%zx\r\n", data.size());
    Send(size + data + "\r\n");
  }
  void End() { Send("0\r\n\r\n"); }

 private:
  void Send(const std::string& bytes) { ASSERT_EQ(write(connection_, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size())); }

  int listener_ = -1, connection_ = -1;
  int port_ = 0;
};

// Each part reaches the caller once it has arrived, not when a buffer is full or the stream
// ends: a watch event must not wait for the next one. And every byte arrives, in order.
TEST(CpprestTransport, AStreamHandsOverEachPartAsItArrives) {
  StreamingServer server;
  KubeConfig config;
  config.server = server.url();
  auto transport = NewCpprestTransport(config);
  ASSERT_TRUE(transport.ok()) << transport.status().ToString();

  const std::string first = R"({"type":"ADDED","object":{"metadata":{"name":"a"}}})" "\n" R"({"type":"MOD)";
  const std::string second = std::string(100000, ' ') + R"(IFIED"})" "\n";
  std::promise<void> first_arrived;
  std::string received;
  auto stream = std::async(std::launch::async, [&] {
    HttpRequest watch;
    watch.method = "GET";
    watch.path = "/api/v1/pods?watch=1";
    return (*transport)->Stream(watch, [&](std::string_view chunk) {
      received += chunk;
      if (received == first) first_arrived.set_value();
      return Status::Ok();
    });
  });
  server.Accept();
  server.SendChunk(first);
  const std::future_status waited = first_arrived.get_future().wait_for(std::chrono::seconds(10));
  server.SendChunk(second);
  server.End();
  auto response = stream.get();
  EXPECT_EQ(waited, std::future_status::ready) << "the first part was held back until the second came";
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(received, first + second);
}

}  // namespace
}  // namespace ergobench::kube

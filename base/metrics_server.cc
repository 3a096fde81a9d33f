#include "base/metrics_server.h"

#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace ergobench {
// What the server answers. Outside the anonymous namespace, so that MetricsServer::Impl may
// hold it in a unity build too (GCC's -Wsubobject-linkage).
struct MetricsServerRoutes {
  std::function<std::string()> render_metrics;
  std::function<bool()> ready;
  ExtraRoutes extra;
};

// The open connections, in all and by peer address, within HttpServerLimits.
// Outside the anonymous namespace too: MetricsServer::Impl holds one.
class MetricsServerConnections {
 public:
  explicit MetricsServerConnections(const HttpServerLimits& limits) : limits_(limits) {}

  // Counts a connection from `peer` in, unless a limit is reached.
  bool TryOpen(const boost::asio::ip::address& peer) {
    std::lock_guard<std::mutex> lock(mutex_);
    int& from_peer = by_peer_[peer];
    if (open_ >= limits_.max_connections || from_peer >= limits_.max_connections_per_peer) {
      if (from_peer == 0) by_peer_.erase(peer);
      return false;
    }
    ++open_;
    ++from_peer;
    return true;
  }
  void Close(const boost::asio::ip::address& peer) {
    std::lock_guard<std::mutex> lock(mutex_);
    --open_;
    if (--by_peer_[peer] == 0) by_peer_.erase(peer);
  }

 private:
  const HttpServerLimits& limits_;
  std::mutex mutex_;
  int open_ = 0;
  std::map<boost::asio::ip::address, int> by_peer_;
};

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Routes = MetricsServerRoutes;

http::response<http::string_body> Answer(const http::request<http::string_body>& request, const Routes& routes) {
  auto reply = [&request](http::status status, const char* content_type, std::string body) {
    http::response<http::string_body> response{status, request.version()};
    response.set(http::field::content_type, content_type);
    response.body() = std::move(body);
    response.prepare_payload();
    if (request.method() == http::verb::head) response.body().clear();  // Content-Length stays
    return response;
  };
  const beast::string_view target = request.target();
  const beast::string_view path = target.substr(0, target.find('?'));
  if (routes.extra) {
    const beast::string_view method = request.method_string();
    const beast::string_view authorization = request[http::field::authorization];
    const beast::string_view query = path.size() < target.size() ? target.substr(path.size() + 1) : "";
    const RouteRequest route{{method.data(), method.size()}, {path.data(), path.size()},
                             {authorization.data(), authorization.size()}, {query.data(), query.size()}};
    if (std::optional<HttpReply> answer = routes.extra(route)) {
      auto response =
          reply(static_cast<http::status>(answer->status), answer->content_type.c_str(), std::move(answer->body));
      for (const auto& [field, value] : answer->headers) response.set(field, value);
      return response;
    }
  }
  const auto method = request.method();
  if (method != http::verb::get && method != http::verb::head) {
    return reply(http::status::method_not_allowed, "text/plain", "GET only\n");
  }
  if (path == "/metrics") {
    return reply(http::status::ok, "text/plain; version=0.0.4; charset=utf-8", routes.render_metrics());
  }
  if (path == "/healthz") return reply(http::status::ok, "text/plain", "ok\n");
  if (path == "/readyz") {
    const bool ok = !routes.ready || routes.ready();
    return reply(ok ? http::status::ok : http::status::service_unavailable, "text/plain", ok ? "ok\n" : "not ready\n");
  }
  return reply(http::status::not_found, "text/plain", "not found: /metrics, /healthz, /readyz\n");
}

// One connection: read a request under a deadline, answer it, and read the next while the
// client keeps the connection alive. Every step is asynchronous, so a slow client only ever
// holds its own connection.
class Session : public std::enable_shared_from_this<Session> {
 public:
  // `counts` has counted the connection in; the session counts it out.
  Session(tcp::socket socket, asio::ip::address peer, const Routes& routes, const HttpServerLimits& limits,
          MetricsServerConnections* counts)
      : stream_(std::move(socket)), routes_(routes), limits_(limits), peer_(std::move(peer)), counts_(counts) {}
  ~Session() { counts_->Close(peer_); }

  void ReadRequest() {
    parser_.emplace();
    parser_->header_limit(static_cast<uint32_t>(limits_.max_header_bytes));
    parser_->body_limit(limits_.max_body_bytes);
    // One deadline for the whole request, not per read: a byte now and then does not renew it.
    // The header is read apart: Beast 1.74 checks a Content-Length against the body limit only
    // then, not in the eager read that async_read does.
    stream_.expires_after(limits_.request_timeout);
    http::async_read_header(stream_, buffer_, *parser_, [self = shared_from_this()](beast::error_code error, size_t) {
      if (error) return self->OnRequest(error);
      http::async_read(self->stream_, self->buffer_, *self->parser_,
                       [self](beast::error_code body_error, size_t) { self->OnRequest(body_error); });
    });
  }

 private:
  void OnRequest(beast::error_code error) {
    if (error == http::error::header_limit) return Refuse(http::status::request_header_fields_too_large);
    if (error == http::error::body_limit) return Refuse(http::status::payload_too_large);
    if (error == http::error::end_of_stream) return Close();
    // Out of time, reset, or shut down: nothing more can be said on this connection.
    if (error == beast::error::timeout || error == asio::error::connection_reset ||
        error == asio::error::operation_aborted) {
      return stream_.close();
    }
    if (error) return Refuse(http::status::bad_request);
    const http::request<http::string_body> request = parser_->release();
    http::response<http::string_body> response = Answer(request, routes_);
    response.keep_alive(request.keep_alive());
    Send(std::move(response));
  }

  // A request the server will not read to its end: answer, then close without a reset.
  void Refuse(http::status status) {
    http::response<http::string_body> response{status, 11};
    response.set(http::field::content_type, "text/plain");
    response.body() = std::string(http::obsolete_reason(status)) + "\n";
    response.keep_alive(false);
    response.prepare_payload();
    Send(std::move(response));
  }

  void Send(http::response<http::string_body> response) {
    response_ = std::move(response);
    stream_.expires_after(limits_.write_timeout);
    http::async_write(stream_, response_, [self = shared_from_this()](beast::error_code error, size_t) {
      if (error) return self->stream_.close();
      if (!self->response_.keep_alive()) return self->Close();
      self->ReadRequest();
    });
  }

  // Closing with unread input makes the kernel send a reset, which can destroy the response
  // before the client reads it. So: end our side, read what the client still sends until it
  // closes (or a second passes), then close.
  void Close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(std::chrono::seconds(1));
    Drain();
  }

  void Drain() {
    stream_.async_read_some(asio::buffer(discard_), [self = shared_from_this()](beast::error_code error, size_t) {
      if (error) return self->stream_.close();
      self->Drain();
    });
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> response_;
  char discard_[4096];
  const Routes& routes_;
  const HttpServerLimits& limits_;
  asio::ip::address peer_;
  MetricsServerConnections* counts_;
};

}  // namespace

// Two threads run every connection asynchronously, each connection on a strand of its own: a
// large /metrics page being rendered on one thread does not hold a probe back. They are
// std::threads, with the default 8 MiB stack: libraries with large static TLS (OpenBLAS brings
// 60 KiB) leave no room in small thread stacks.
struct MetricsServer::Impl {
  static constexpr int kThreads = 2;
  // Sessions refer to these; they live until io_context, declared after them, has destroyed
  // the last session.
  Routes routes;
  HttpServerLimits limits;
  MetricsServerConnections counts{limits};
  asio::io_context io{kThreads};
  tcp::acceptor acceptor{io};
  std::vector<std::thread> threads;

  ~Impl() {
    if (threads.empty()) return;
    asio::post(acceptor.get_executor(), [this] {
      beast::error_code ignored;
      acceptor.close(ignored);
      io.stop();
    });
    for (std::thread& thread : threads) thread.join();
  }

  void Accept() {
    acceptor.async_accept(asio::make_strand(io), [this](beast::error_code error, tcp::socket socket) {
      if (error == asio::error::operation_aborted) return;
      beast::error_code no_peer;
      const asio::ip::address peer = error ? asio::ip::address() : socket.remote_endpoint(no_peer).address();
      if (!error && !no_peer && counts.TryOpen(peer)) {
        std::make_shared<Session>(std::move(socket), peer, routes, limits, &counts)->ReadRequest();
      }
      Accept();  // a refused or failed connection is closed when `socket` goes out of scope
    });
  }
};

MetricsServer::MetricsServer(std::unique_ptr<Impl> impl, int port) : impl_(std::move(impl)), port_(port) {}

MetricsServer::~MetricsServer() = default;

StatusOr<std::unique_ptr<MetricsServer>> MetricsServer::Start(const std::string& bind_address, int port,
                                                              std::function<std::string()> render_metrics,
                                                              std::function<bool()> ready, HttpServerLimits limits,
                                                              ExtraRoutes extra) {
  const std::string where = bind_address + ":" + std::to_string(port);
  beast::error_code error;
  const asio::ip::address address = asio::ip::make_address(bind_address, error);
  if (error) return Status::InvalidArgument("metrics bind address \"" + bind_address + "\" is not an IP address");
  auto impl = std::make_unique<Impl>();
  impl->routes = {std::move(render_metrics), std::move(ready), std::move(extra)};
  impl->limits = limits;
  const tcp::endpoint endpoint(address, static_cast<uint16_t>(port));
  tcp::acceptor& acceptor = impl->acceptor;
  acceptor.open(endpoint.protocol(), error);
  if (!error) acceptor.set_option(asio::socket_base::reuse_address(true), error);
  if (!error) acceptor.bind(endpoint, error);
  if (error == asio::error::address_in_use) {
    return Status::FailedPrecondition("metrics port " + std::to_string(port) + " is already in use (" + where + ")");
  }
  if (!error) acceptor.listen(asio::socket_base::max_listen_connections, error);
  if (error) return Status::FailedPrecondition("cannot serve metrics on " + where + ": " + error.message());
  const int bound_port = acceptor.local_endpoint().port();
  Impl* serving = impl.get();
  serving->Accept();
  for (int i = 0; i < Impl::kThreads; ++i) impl->threads.emplace_back([serving] { serving->io.run(); });
  return std::unique_ptr<MetricsServer>(new MetricsServer(std::move(impl), bound_port));
}

}  // namespace ergobench

#include "base/http_get.h"

#include <algorithm>
#include <optional>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace ergobench {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// The exchange as a chain of asynchronous steps on a private io_context: beast's stream
// deadline applies to asynchronous operations only, and one expiry covers them all.
class Exchange {
 public:
  Exchange(const tcp::endpoint& endpoint, http::verb method, const std::string& host, const std::string& path,
           const HttpGetOptions& options)
      : stream_(io_), endpoint_(endpoint) {
    request_ = {method, path, 11};
    request_.set(http::field::host, host);
    request_.set(http::field::user_agent, "ergobench-operator");
    request_.set(http::field::connection, "close");
    if (!options.bearer_token.empty()) request_.set(http::field::authorization, "Bearer " + options.bearer_token);
    parser_.body_limit(options.max_body_bytes);
    stream_.expires_after(options.deadline);
  }

  beast::error_code Run() {
    stream_.async_connect(endpoint_, [this](beast::error_code error) {
      if (error) return Finish(error);
      http::async_write(stream_, request_, [this](beast::error_code write_error, size_t) {
        if (write_error) return Finish(write_error);
        // The header first: Beast 1.74 checks a Content-Length against the body limit only
        // when the header is parsed apart from the body (not in the eager read async_read does).
        http::async_read_header(stream_, buffer_, parser_, [this](beast::error_code header_error, size_t) {
          if (header_error) return Finish(header_error);
          http::async_read(stream_, buffer_, parser_, [this](beast::error_code read_error, size_t) { Finish(read_error); });
        });
      });
    });
    io_.run();
    return result_;
  }

  http::response<http::string_body>& response() { return parser_.get(); }

 private:
  void Finish(beast::error_code error) {
    result_ = error;
    beast::error_code ignored;
    stream_.socket().close(ignored);
  }

  asio::io_context io_;
  beast::tcp_stream stream_;
  tcp::endpoint endpoint_;
  http::request<http::empty_body> request_;
  beast::flat_buffer buffer_;
  http::response_parser<http::string_body> parser_;
  beast::error_code result_;
};

}  // namespace

StatusOr<std::string> HttpGet(const std::string& host, int port, const std::string& path, HttpGetOptions options) {
  return HttpRequest("GET", host, port, path, options);
}

StatusOr<std::string> HttpRequest(const std::string& method, const std::string& host, int port,
                                  const std::string& path, HttpGetOptions options) {
  const std::string url = method + " http://" + (host.find(':') != std::string::npos ? "[" + host + "]" : host) +
                          ":" + std::to_string(port) + path;
  const http::verb verb = http::string_to_verb(method);
  if (verb == http::verb::unknown) return Status::InvalidArgument(url + ": unknown method");
  beast::error_code error;
  const asio::ip::address address = asio::ip::make_address(host, error);
  if (error) return Status::InvalidArgument(url + ": \"" + host + "\" is not an IP address");
  Exchange exchange(tcp::endpoint(address, static_cast<uint16_t>(port)), verb, host, path, options);
  error = exchange.Run();
  if (error == beast::error::timeout) {
    return Status::DeadlineExceeded(url + ": no whole answer within " + std::to_string(options.deadline.count()) +
                                    " ms");
  }
  if (error == http::error::body_limit) {
    return Status::OutOfRange(url + ": the answer is larger than " + std::to_string(options.max_body_bytes) +
                              " bytes");
  }
  if (error) return Status::Unavailable(url + ": " + error.message());
  const auto& response = exchange.response();
  if (response.result() != http::status::ok) {
    return Status::Unavailable(url + ": HTTP " + std::to_string(response.result_int()) + " " +
                               response.body().substr(0, std::min<size_t>(response.body().find('\n'), 200)));
  }
  return response.body();
}

}  // namespace ergobench

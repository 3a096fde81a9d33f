#include "kube/client/cpprest_transport.h"

#include <algorithm>
#include <mutex>
#include <vector>

#include <cpprest/http_client.h>
#include <cpprest/containerstream.h>
#include <pplx/threadpool.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "kube/client/token_source.h"

namespace ergobench::kube {
namespace {

namespace http = web::http;
namespace client = web::http::client;

constexpr size_t kIoThreads = 2;

class CpprestTransport final : public HttpTransport {
 public:
  CpprestTransport(const KubeConfig& config, const TransportOptions& options)
      : tokens_(config.token, config.token_file),
        requests_(utility::conversions::to_string_t(config.server), ClientConfig(config, options.request_timeout)),
        streams_(utility::conversions::to_string_t(config.server),
                 ClientConfig(config, options.stream_inactivity_timeout)) {}

  StatusOr<HttpResponse> Send(const HttpRequest& request) override {
    try {
      ASSIGN_OR_RETURN(http::http_request message, Build(request));
      http::http_response response = requests_.request(message, cancel_.get_token()).get();
      return HttpResponse{response.status_code(), response.extract_utf8string(true).get()};
    } catch (const std::exception& e) {
      return Failure(request, e);
    }
  }

  StatusOr<HttpResponse> Stream(const HttpRequest& request,
                                const std::function<Status(std::string_view)>& on_chunk) override {
    try {
      ASSIGN_OR_RETURN(http::http_request message, Build(request));
      http::http_response response = streams_.request(message, cancel_.get_token()).get();
      if (response.status_code() != http::status_codes::OK) {
        return HttpResponse{response.status_code(), response.extract_utf8string(true).get()};
      }
      // Whatever has arrived, in one read: at least a byte, so that the read waits for more
      // and returns as soon as there is some (a larger read would wait to be filled). The
      // caller reassembles lines. read_line instead costs a task and a lock per character:
      // with a hundred Benchmarks, most of the operator's CPU went there.
      concurrency::streams::streambuf<uint8_t> body = response.body().streambuf();
      std::vector<uint8_t> buffer(64 << 10);
      while (true) {
        const size_t available = static_cast<size_t>(std::max<std::streamsize>(body.in_avail(), 1));
        const size_t read = body.getn(buffer.data(), std::min(available, buffer.size())).get();
        if (read == 0) break;  // the end of the stream
        RETURN_IF_ERROR(on_chunk(std::string_view(reinterpret_cast<const char*>(buffer.data()), read)));
      }
      return HttpResponse{response.status_code(), ""};
    } catch (const std::exception& e) {
      return Failure(request, e);
    }
  }

  void Shutdown() override { cancel_.cancel(); }

 private:
  static client::http_client_config ClientConfig(const KubeConfig& config, std::chrono::seconds timeout) {
    client::http_client_config out;
    out.set_timeout(timeout);
    out.set_validate_certificates(!config.insecure_skip_tls_verify);
    const std::string ca = config.ca_pem, cert = config.client_cert_pem, key = config.client_key_pem;
    out.set_ssl_context_callback([ca, cert, key](boost::asio::ssl::context& context) {
      if (!ca.empty()) {
        // The cluster's CA alone: cpprest has loaded the system's trust store already, and a
        // certificate some public CA issued for the API server's name must not pass.
        SSL_CTX_set_cert_store(context.native_handle(), X509_STORE_new());
        context.add_certificate_authority(boost::asio::buffer(ca.data(), ca.size()));
      }
      if (!cert.empty()) {
        context.use_certificate_chain(boost::asio::buffer(cert.data(), cert.size()));
        context.use_private_key(boost::asio::buffer(key.data(), key.size()), boost::asio::ssl::context::pem);
      }
    });
    return out;
  }

  StatusOr<http::http_request> Build(const HttpRequest& request) {
    http::http_request message(utility::conversions::to_string_t(request.method));
    message.set_request_uri(utility::conversions::to_string_t(request.path));
    message.headers().add(U("Accept"), U("application/json"));
    message.headers().add(U("User-Agent"), U("ergobench-operator"));
    ASSIGN_OR_RETURN(const std::string token, tokens_.Token());
    if (!token.empty()) message.headers().add(U("Authorization"), utility::conversions::to_string_t("Bearer " + token));
    if (!request.body.empty()) message.set_body(request.body, request.content_type);
    return message;
  }

  static Status Failure(const HttpRequest& request, const std::exception& e) {
    const std::string what = request.method + " " + request.path.substr(0, request.path.find('?')) + ": " + e.what();
    if (dynamic_cast<const pplx::task_canceled*>(&e) != nullptr) return Status::Cancelled(what);
    return Status::Unavailable(what);
  }

  TokenSource tokens_;
  client::http_client requests_;
  client::http_client streams_;
  pplx::cancellation_token_source cancel_;
};

}  // namespace

StatusOr<std::unique_ptr<HttpTransport>> NewCpprestTransport(const KubeConfig& config, const TransportOptions& options) {
  if (config.server.rfind("https://", 0) != 0 && config.server.rfind("http://", 0) != 0) {
    return Status::InvalidArgument("server \"" + config.server + "\" is not an http(s) URL");
  }
  // The shared pool only completes I/O and runs continuations (callers wait in their own
  // threads): cpprestsdk's default of 40 threads costs a context switch per hand-over and a
  // heap arena per thread. Sized once, before the first client starts it.
  static std::once_flag sized;
  std::call_once(sized, [] {
    try {
      crossplat::threadpool::initialize_with_threads(kIoThreads);
    } catch (const std::exception&) {
      // Started already by another user in this process: its size stays.
    }
  });
  try {
    return std::unique_ptr<HttpTransport>(new CpprestTransport(config, options));
  } catch (const std::exception& e) {
    return Status::InvalidArgument("server \"" + config.server + "\": " + e.what());
  }
}

}  // namespace ergobench::kube

// A scripted HttpTransport for unit tests of the Kubernetes client and what sits on it:
// records every request, answers from a queue (or a handler), and hands watch bodies over
// in the chunks the test chose.
#pragma once

#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "kube/client/http_transport.h"

namespace ergobench::testing {

struct ScriptedStream {
  int status = 200;
  std::vector<std::string> chunks;  // for 200
  std::string body;                 // otherwise
  Status failure = Status::Ok();    // a transport failure after the chunks
};

class FakeTransport : public kube::HttpTransport {
 public:
  // Answers Send in order; when the queue is empty, `handler` answers (if set).
  std::deque<StatusOr<kube::HttpResponse>> responses;
  std::deque<ScriptedStream> streams;
  std::function<StatusOr<kube::HttpResponse>(const kube::HttpRequest&)> handler;
  std::vector<kube::HttpRequest> requests;

  // The handler runs outside the lock, so that concurrent requests are concurrent in it too.
  StatusOr<kube::HttpResponse> Send(const kube::HttpRequest& request) override {
    std::function<StatusOr<kube::HttpResponse>(const kube::HttpRequest&)> answer;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      requests.push_back(request);
      if (!responses.empty()) {
        auto response = responses.front();
        responses.pop_front();
        return response;
      }
      answer = handler;
    }
    if (answer) return answer(request);
    return Status::Unavailable("no scripted response for " + request.method + " " + request.path);
  }

  StatusOr<kube::HttpResponse> Stream(const kube::HttpRequest& request,
                                      const std::function<Status(std::string_view)>& on_chunk) override {
    ScriptedStream stream;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      requests.push_back(request);
      if (streams.empty()) return Status::Unavailable("no scripted stream for " + request.path);
      stream = streams.front();
      streams.pop_front();
    }
    if (stream.status != 200) return kube::HttpResponse{stream.status, stream.body};
    for (const auto& chunk : stream.chunks) RETURN_IF_ERROR(on_chunk(chunk));
    if (!stream.failure.ok()) return stream.failure;
    return kube::HttpResponse{200, ""};
  }

  void Shutdown() override {}

 private:
  std::mutex mutex_;
};

inline kube::HttpResponse Json(int status, const std::string& body) { return {status, body}; }

}  // namespace ergobench::testing

#include "kube/runtime/event_recorder.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>

#include "tests/testing/fake_transport.h"

namespace ergobench::runtime {
namespace {

using nlohmann::json;

json Event(const std::string& reason) { return {{"metadata", {{"generateName", "b."}}}, {"reason", reason}}; }

// Record() returns before the Event is created: a reconcile waits for no Events API.
TEST(EventRecorderMeasureTest, RecordReturnsAtOnceAndEventsGoOutInOrder) {
  testing::FakeTransport transport;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  transport.handler = [released](const kube::HttpRequest& r) -> StatusOr<kube::HttpResponse> {
    released.wait();  // the API server answers only when the test lets it
    return kube::HttpResponse{201, r.body};
  };
  kube::KubeClient client(&transport);
  EventRecorder recorder(&client);
  const auto start = std::chrono::steady_clock::now();
  recorder.Record("ns", Event("Created"));
  recorder.Record("other", Event("Succeeded"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  release.set_value();
  recorder.Flush();
  ASSERT_EQ(transport.requests.size(), 2u);
  EXPECT_EQ(transport.requests[0].path, "/api/v1/namespaces/ns/events");
  EXPECT_EQ(json::parse(transport.requests[0].body)["reason"], "Created");
  EXPECT_EQ(transport.requests[1].path, "/api/v1/namespaces/other/events");
  EXPECT_EQ(json::parse(transport.requests[1].body)["reason"], "Succeeded");
}

// A full queue drops the newest Event and counts it; a refused create is not retried.
TEST(EventRecorder, AFullQueueDropsAndAFailureIsNotRetried) {
  testing::FakeTransport transport;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> first_in_flight;
  transport.handler = [&, released](const kube::HttpRequest& r) -> StatusOr<kube::HttpResponse> {
    if (json::parse(r.body)["reason"] == "first") first_in_flight.set_value();
    released.wait();
    return kube::HttpResponse{403, R"({"kind":"Status","code":403,"reason":"Forbidden"})"};
  };
  kube::KubeClient client(&transport);
  EventRecorder recorder(&client, /*capacity=*/2);
  recorder.Record("ns", Event("first"));
  first_in_flight.get_future().wait();  // taken off the queue, being sent
  recorder.Record("ns", Event("second"));
  recorder.Record("ns", Event("third"));
  recorder.Record("ns", Event("fourth"));  // the queue holds two: dropped
  EXPECT_EQ(recorder.dropped(), 1u);
  release.set_value();
  recorder.Flush();
  std::vector<std::string> sent;
  for (const auto& r : transport.requests) sent.push_back(json::parse(r.body)["reason"]);
  EXPECT_EQ(sent, (std::vector<std::string>{"first", "second", "third"}));
}

}  // namespace
}  // namespace ergobench::runtime

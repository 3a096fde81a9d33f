#include "kube/client/client.h"

#include <gtest/gtest.h>

#include "kube/client/api_error.h"
#include "tests/testing/fake_transport.h"

namespace ergobench::kube {
namespace {

using nlohmann::json;
using testing::FakeTransport;
using testing::Json;

TEST(KubeClient, BuildsEachVerbsRequest) {
  FakeTransport transport;
  KubeClient client(&transport);
  for (int i = 0; i < 5; ++i) transport.responses.push_back(Json(200, R"({"metadata":{"name":"x"}})"));
  ASSERT_TRUE(client.Get(Pods(), "ns", "p").ok());
  ASSERT_TRUE(client.Create(Pods(), "ns", json{{"metadata", {{"name", "p"}}}}).ok());
  ASSERT_TRUE(client.MergePatch(Benchmarks(), "ns", "b", json{{"spec", {{"workers", 4}}}}).ok());
  ASSERT_TRUE(client.UpdateStatus(Benchmarks(), json{{"metadata", {{"name", "b"}, {"namespace", "ns"}}}}).ok());
  ASSERT_TRUE(client.Delete(Pods(), "ns", "p").ok());

  ASSERT_EQ(transport.requests.size(), 5u);
  EXPECT_EQ(transport.requests[0].method, "GET");
  EXPECT_EQ(transport.requests[0].path, "/api/v1/namespaces/ns/pods/p");
  EXPECT_EQ(transport.requests[1].method, "POST");
  EXPECT_EQ(transport.requests[1].path, "/api/v1/namespaces/ns/pods");
  EXPECT_EQ(json::parse(transport.requests[1].body)["metadata"]["name"], "p");
  EXPECT_EQ(transport.requests[2].method, "PATCH");
  EXPECT_EQ(transport.requests[2].content_type, "application/merge-patch+json");
  EXPECT_EQ(transport.requests[3].method, "PUT");
  EXPECT_EQ(transport.requests[3].path, "/apis/ergobench.io/v1alpha1/namespaces/ns/benchmarks/b/status");
  EXPECT_EQ(transport.requests[4].method, "DELETE");
  EXPECT_EQ(json::parse(transport.requests[4].body)["propagationPolicy"], "Background");
  EXPECT_FALSE(json::parse(transport.requests[4].body).contains("preconditions"));
  EXPECT_EQ(client.RequestCounts(),
            (std::map<std::string, uint64_t>{{"create", 1}, {"delete", 1}, {"get", 1}, {"patch", 1}, {"update", 1}}));
}

TEST(KubeClient, MapsErrorBodies) {
  FakeTransport transport;
  KubeClient client(&transport);
  transport.responses.push_back(Json(404, R"({"kind":"Status","code":404,"reason":"NotFound","message":"nope"})"));
  transport.responses.push_back(Json(200, "<html>"));
  transport.responses.push_back(Status::Unavailable("connection refused"));
  EXPECT_TRUE(IsNotFound(client.Get(Pods(), "ns", "p").status()));
  EXPECT_EQ(client.Get(Pods(), "ns", "p").status().code(), StatusCode::kInternal);
  EXPECT_EQ(client.Get(Pods(), "ns", "p").status().code(), StatusCode::kUnavailable);
}

TEST(KubeClient, ListFollowsContinueTokensAndRestoresKinds) {
  FakeTransport transport;
  KubeClient client(&transport);
  transport.responses.push_back(
      Json(200, R"({"metadata":{"resourceVersion":"10","continue":"t/1"},"items":[{"metadata":{"name":"a"}}]})"));
  transport.responses.push_back(Json(200, R"({"metadata":{"resourceVersion":"11"},"items":[{"metadata":{"name":"b"}}]})"));
  ListOptions options;
  options.label_selector = "x=y";
  auto list = client.List(Pods(), "ns", options);
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->items.size(), 2u);
  EXPECT_EQ(list->items[1]["kind"], "Pod");
  EXPECT_EQ(list->items[1]["apiVersion"], "v1");
  EXPECT_EQ(list->resource_version, "11");
  EXPECT_EQ(transport.requests[0].path, "/api/v1/namespaces/ns/pods?labelSelector=x%3Dy&limit=500");
  EXPECT_EQ(transport.requests[1].path, "/api/v1/namespaces/ns/pods?labelSelector=x%3Dy&limit=500&continue=t%2F1");
}

TEST(KubeClient, WatchDeliversEventsAcrossChunkBoundaries) {
  FakeTransport transport;
  KubeClient client(&transport);
  transport.streams.push_back({200,
                               {R"({"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"5"}}})"
                                "\n{\"type\":\"BOOK",
                                R"(MARK","object":{"metadata":{"resourceVersion":"9"}}})" "\n"},
                               "", Status::Ok()});
  std::vector<std::string> seen;
  ListOptions options;
  options.resource_version = "4";
  options.timeout_seconds = 30;
  options.allow_bookmarks = true;
  Status s = client.Watch(Pods(), "", options, [&](const WatchEvent& e) {
                            seen.push_back(EventResourceVersion(e));
                            return Status::Ok();
                          });
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(seen, (std::vector<std::string>{"5", "9"}));
  EXPECT_EQ(transport.requests[0].path, "/api/v1/pods?resourceVersion=4&watch=true&allowWatchBookmarks=true&timeoutSeconds=30");
}

TEST(KubeClient, WatchReportsAnEventCutShortAndErrorStatuses) {
  FakeTransport transport;
  KubeClient client(&transport);
  transport.streams.push_back({200, {R"({"type":"ADDED","obj)"}, "", Status::Ok()});
  transport.streams.push_back({410, {}, R"({"kind":"Status","code":410,"reason":"Gone","message":"too old"})", Status::Ok()});
  auto ignore = [](const WatchEvent&) { return Status::Ok(); };
  EXPECT_EQ(client.Watch(Pods(), "", {}, ignore).code(), StatusCode::kUnavailable);
  EXPECT_TRUE(IsGone(client.Watch(Pods(), "", {}, ignore)));
}

TEST(KubeClient, ADeleteCanNameTheUidItMeans) {
  FakeTransport transport;
  KubeClient client(&transport);
  transport.responses.push_back(Json(200, R"({"kind":"Status","status":"Success"})"));
  ASSERT_TRUE(client.Delete(Pods(), "ns", "p", DeleteOptions("uid-3")).ok());
  EXPECT_EQ(json::parse(transport.requests.at(0).body)["preconditions"], json({{"uid", "uid-3"}}));
  EXPECT_EQ(json::parse(transport.requests.at(0).body)["propagationPolicy"], "Background");
  EXPECT_FALSE(json::parse(transport.requests.at(0).body).contains("gracePeriodSeconds")) << "the object's own";
}

TEST(KubeClient, ADeleteCanAskForNoGracePeriod) {
  FakeTransport transport;
  KubeClient client(&transport);
  transport.responses.push_back(Json(200, R"({"kind":"Status","status":"Success"})"));
  DeleteOptions options;
  options.grace_period_seconds = 0;
  ASSERT_TRUE(client.Delete(Pods(), "ns", "p", options).ok());
  EXPECT_EQ(json::parse(transport.requests.at(0).body)["gracePeriodSeconds"], 0);
}

TEST(KubeClient, ADeleteInTheForegroundKeepsTheObjectUntilItsDependentsAreGone) {
  FakeTransport transport;
  KubeClient client(&transport);
  transport.responses.push_back(Json(200, R"({"metadata":{"name":"b","deletionTimestamp":"x"}})"));
  ASSERT_TRUE(client.Delete(Benchmarks(), "ns", "b", DeleteOptions("uid-1", Propagation::kForeground)).ok());
  EXPECT_EQ(json::parse(transport.requests.at(0).body)["propagationPolicy"], "Foreground");
}

// Text from outside (pod logs, user specs) may hold invalid UTF-8; sending it must not throw.
// The bad bytes go out as U+FFFD, as client-go's encoder writes them.
TEST(KubeClient, InvalidUtf8IsSentReplacedNotThrown) {
  FakeTransport transport;
  KubeClient client(&transport);
  transport.responses.push_back(Json(201, R"({"metadata":{"name":"e"}})"));
  const std::string broken = std::string("ab\xc3", 3);  // a two-byte character cut after its first byte
  auto created = client.Create(Events(), "ns", json{{"message", broken}});
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(json::parse(transport.requests.at(0).body)["message"], "ab\ufffd");
}

}  // namespace
}  // namespace ergobench::kube

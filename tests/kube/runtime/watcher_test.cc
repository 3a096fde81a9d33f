#include "kube/runtime/watcher.h"

#include <gtest/gtest.h>

#include <deque>

#include "kube/client/api_error.h"

namespace ergobench::runtime {
namespace {

using nlohmann::json;

json WatchedObject(const std::string& name, const std::string& rv) {
  return {{"metadata", {{"name", name}, {"namespace", "ns"}, {"resourceVersion", rv}}}};
}

kube::WatchEvent WatchedEvent(kube::WatchEventType type, json object) { return {type, std::move(object)}; }

// A script of list results and watch streams.
class ScriptedListWatch : public ListWatch {
 public:
  std::deque<StatusOr<kube::ObjectList>> lists;
  struct Stream {
    std::vector<kube::WatchEvent> events;
    Status end = Status::Ok();
  };
  std::deque<Stream> watches;
  std::vector<std::string> watched_from;
  std::atomic<bool>* stop_when_done = nullptr;  // set when the script of watches runs out

  StatusOr<kube::ObjectList> List() override {
    auto next = lists.front();
    lists.pop_front();
    return next;
  }
  Status Watch(const std::string& rv, const std::function<Status(kube::WatchEvent&& event)>& on_event) override {
    watched_from.push_back(rv);
    if (watches.empty() && stop_when_done != nullptr) {
      *stop_when_done = true;
      return Status::Cancelled("the script ended");
    }
    Stream stream = watches.front();
    watches.pop_front();
    for (const auto& e : stream.events) RETURN_IF_ERROR(on_event(kube::WatchEvent(e)));
    return stream.end;
  }
};

struct Recorder {
  std::vector<std::string> log;
  void operator()(const WatcherEvent& e) {
    std::string names;
    for (const auto& o : e.objects) names += o["metadata"]["name"].get<std::string>();
    const char* kind = e.kind == WatcherEvent::kRestarted ? "restarted" : e.kind == WatcherEvent::kApplied ? "applied" : "deleted";
    log.push_back(std::string(kind) + ":" + names);
  }
};

TEST(Watcher, ListsThenWatchesFromTheListsVersion) {
  ScriptedListWatch source;
  source.lists.push_back(kube::ObjectList{{WatchedObject("a", "3"), WatchedObject("b", "4")}, "10"});
  source.watches.push_back({{WatchedEvent(kube::WatchEventType::kAdded, WatchedObject("c", "11")),
                             WatchedEvent(kube::WatchEventType::kModified, WatchedObject("a", "12")),
                             WatchedEvent(kube::WatchEventType::kDeleted, WatchedObject("b", "13"))}});
  Recorder recorder;
  Watcher watcher(&source, std::ref(recorder));
  EXPECT_EQ(watcher.state(), Watcher::State::kEmpty);
  ASSERT_TRUE(watcher.Step().ok());
  EXPECT_EQ(watcher.state(), Watcher::State::kListed);
  EXPECT_EQ(watcher.resource_version(), "10");
  ASSERT_TRUE(watcher.Step().ok());
  EXPECT_EQ(source.watched_from, std::vector<std::string>{"10"});
  EXPECT_EQ(recorder.log, (std::vector<std::string>{"restarted:ab", "applied:c", "applied:a", "deleted:b"}));
  // The stream ended: watch again from the last version seen, without a list.
  EXPECT_EQ(watcher.state(), Watcher::State::kListed);
  EXPECT_EQ(watcher.resource_version(), "13");
}

TEST(Watcher, BookmarksMoveTheVersionSilently) {
  ScriptedListWatch source;
  source.lists.push_back(kube::ObjectList{{}, "10"});
  source.watches.push_back({{WatchedEvent(kube::WatchEventType::kBookmark, json{{"metadata", {{"resourceVersion", "50"}}}})}});
  source.watches.push_back({});
  Recorder recorder;
  Watcher watcher(&source, std::ref(recorder));
  ASSERT_TRUE(watcher.Step().ok());
  ASSERT_TRUE(watcher.Step().ok());
  EXPECT_EQ(watcher.Step().code(), StatusCode::kUnavailable) << "an empty stream that ends at once";
  EXPECT_EQ(source.watched_from, (std::vector<std::string>{"10", "50"}));
  EXPECT_EQ(recorder.log, std::vector<std::string>{"restarted:"});
}

TEST(Watcher, GoneRelistsAndErrorEventsSurface) {
  const json gone = {{"kind", "Status"}, {"code", 410}, {"reason", "Expired"}, {"message", "too old resource version"}};
  ScriptedListWatch source;
  source.lists.push_back(kube::ObjectList{{WatchedObject("a", "1")}, "10"});
  source.lists.push_back(kube::ObjectList{{WatchedObject("a", "1"), WatchedObject("z", "90")}, "95"});
  // A 410 as an ERROR event in the stream...
  source.watches.push_back({{WatchedEvent(kube::WatchEventType::kError, gone)}});
  // ...or as the watch request's own answer.
  source.watches.push_back({{}, kube::ApiErrorFromObject(gone)});
  source.watches.push_back({{}, Status::Unavailable("connection reset")});
  source.lists.push_back(kube::ObjectList{{}, "99"});
  Recorder recorder;
  Watcher watcher(&source, std::ref(recorder));
  ASSERT_TRUE(watcher.Step().ok());
  EXPECT_TRUE(kube::IsGone(watcher.Step()));
  EXPECT_EQ(watcher.state(), Watcher::State::kEmpty);
  ASSERT_TRUE(watcher.Step().ok());
  EXPECT_EQ(recorder.log, (std::vector<std::string>{"restarted:a", "restarted:az"}));
  EXPECT_TRUE(kube::IsGone(watcher.Step()));
  EXPECT_EQ(watcher.state(), Watcher::State::kEmpty);
  ASSERT_TRUE(watcher.Step().ok());
  // Other failures keep the state: the next step watches from the same version.
  EXPECT_EQ(watcher.Step().code(), StatusCode::kUnavailable);
  EXPECT_EQ(watcher.state(), Watcher::State::kListed);
  EXPECT_EQ(watcher.resource_version(), "99");
}

TEST(Watcher, RunBacksOffOnErrorsAndStopsOnFatalOnes) {
  ScriptedListWatch source;
  source.lists.push_back(Status::Unavailable("refused"));
  source.lists.push_back(Status::Unavailable("refused"));
  source.lists.push_back(Status::Unavailable("refused"));
  source.lists.push_back(kube::ApiError(403, R"({"kind":"Status","code":403,"reason":"Forbidden","message":"no"})"));
  Recorder recorder;
  Watcher watcher(&source, std::ref(recorder));
  std::atomic<bool> stop{false};
  std::vector<Duration> sleeps;
  int errors = 0;
  Status s = watcher.Run(stop, Backoff(std::chrono::milliseconds(800), std::chrono::seconds(30)),
                         [&](Duration d) { sleeps.push_back(d); }, [&](const Status&) { ++errors; });
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(errors, 3);
  EXPECT_EQ(sleeps, (std::vector<Duration>{std::chrono::milliseconds(800), std::chrono::milliseconds(1600),
                                           std::chrono::milliseconds(3200)}));
}

// A server (or proxy) that answers each watch with 200 and ends it at once made the watcher
// reconnect in a hot loop. A stream that ends at once without an event counts as a failure,
// and the delays grow as for any other.
TEST(Watcher, WatchesThatEndAtOnceAreBackedOff) {
  std::atomic<bool> stop{false};
  ScriptedListWatch source;
  source.stop_when_done = &stop;
  source.lists.push_back(kube::ObjectList{{}, "1"});
  for (int i = 0; i < 3; ++i) source.watches.push_back({});
  Recorder recorder;
  Watcher watcher(&source, std::ref(recorder));
  std::vector<Duration> sleeps;
  std::vector<std::string> errors;
  ASSERT_TRUE(watcher
                  .Run(stop, Backoff(std::chrono::milliseconds(800), std::chrono::seconds(30)),
                       [&](Duration d) { sleeps.push_back(d); }, [&](const Status& s) { errors.push_back(s.message()); })
                  .ok());
  EXPECT_EQ(sleeps, (std::vector<Duration>{std::chrono::milliseconds(800), std::chrono::milliseconds(1600),
                                           std::chrono::milliseconds(3200)}));
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].find("ended at once"), std::string::npos) << errors[0];
}

TEST(Watcher, DenialAfterSuccessIsRetriedForAWhile) {
  const Status forbidden = kube::ApiError(403, R"({"kind":"Status","code":403,"reason":"Forbidden","message":"no"})");
  ScriptedListWatch source;
  source.lists.push_back(kube::ObjectList{{}, "1"});
  for (int i = 0; i < 20; ++i) source.watches.push_back({{}, forbidden});
  Recorder recorder;
  Watcher watcher(&source, std::ref(recorder));
  std::atomic<bool> stop{false};
  Duration slept = Duration::zero();
  Status s = watcher.Run(stop, Backoff(std::chrono::seconds(8), std::chrono::seconds(8)),
                         [&](Duration d) { slept += d; }, [](const Status&) {});
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(slept, Watcher::kFatalGrace + std::chrono::seconds(4));  // 8 sleeps of 8 s
  EXPECT_EQ(source.watched_from.size(), 9u);
}

TEST(Backoff, DoublesToItsCapAndResets) {
  Backoff backoff(std::chrono::milliseconds(800), std::chrono::seconds(30));
  std::vector<int64_t> ms;
  for (int i = 0; i < 8; ++i) ms.push_back(std::chrono::duration_cast<std::chrono::milliseconds>(backoff.Next()).count());
  EXPECT_EQ(ms, (std::vector<int64_t>{800, 1600, 3200, 6400, 12800, 25600, 30000, 30000}));
  backoff.Reset();
  EXPECT_EQ(backoff.Next(), std::chrono::milliseconds(800));
  Backoff jittered(std::chrono::seconds(1), std::chrono::seconds(30), 0.5, [] { return 0.999; });
  const auto d = jittered.Next();
  EXPECT_GT(d, std::chrono::milliseconds(500));
  EXPECT_LT(d, std::chrono::milliseconds(502));
}

}  // namespace
}  // namespace ergobench::runtime

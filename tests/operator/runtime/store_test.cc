#include "operator/runtime/store.h"

#include <gtest/gtest.h>

namespace ergobench::runtime {
namespace {

using nlohmann::json;

json Obj(const std::string& ns, const std::string& name, const std::string& rv) {
  return {{"metadata", {{"namespace", ns}, {"name", name}, {"resourceVersion", rv}}}};
}

TEST(Store, FollowsTheWatcher) {
  Store store;
  EXPECT_FALSE(store.Synced());
  store.Apply({WatcherEvent::kRestarted, {Obj("a", "x", "1"), Obj("b", "x", "2")}});
  EXPECT_TRUE(store.Synced());
  EXPECT_EQ(store.Size(), 2u);
  store.Apply({WatcherEvent::kApplied, {Obj("a", "x", "3")}});
  EXPECT_EQ((*store.Get("a/x"))["metadata"]["resourceVersion"], "3");
  store.Apply({WatcherEvent::kDeleted, {Obj("b", "x", "4")}});
  EXPECT_EQ(store.Get("b/x"), std::nullopt);
  // A re-list replaces everything: what vanished meanwhile goes.
  store.Apply({WatcherEvent::kRestarted, {Obj("c", "y", "9")}});
  EXPECT_EQ(store.Get("a/x"), std::nullopt);
  EXPECT_EQ(store.List([](const json& o) { return o["metadata"]["namespace"] == "c"; }).size(), 1u);
}

TEST(Store, OwnWritesNeverHideNewerVersions) {
  Store store;
  store.Apply({WatcherEvent::kRestarted, {Obj("a", "x", "5")}});
  store.ApplyOwnWrite(Obj("a", "x", "6"), "5");  // based on what we read: taken
  EXPECT_EQ((*store.Get("a/x"))["metadata"]["resourceVersion"], "6");
  store.Apply({WatcherEvent::kApplied, {Obj("a", "x", "7")}});
  store.ApplyOwnWrite(Obj("a", "x", "8-stale"), "6");  // the watch has moved on: ignored
  EXPECT_EQ((*store.Get("a/x"))["metadata"]["resourceVersion"], "7");
  store.ApplyOwnWrite(Obj("a", "new", "1"), "");  // a create: only when absent
  store.ApplyOwnWrite(Obj("a", "new", "0-old"), "");
  EXPECT_EQ((*store.Get("a/new"))["metadata"]["resourceVersion"], "1");
}

}  // namespace
}  // namespace ergobench::runtime

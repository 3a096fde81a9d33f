#include "kube/runtime/store.h"

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

// A transform trims what is cached, or refuses it; an object it refuses after holding it (its
// owner changed) goes, and its index value hears of it.
TEST(Store, ATransformTrimsOrRefusesWhatIsCached) {
  Store store([](const json& o) { return o["metadata"].value("namespace", ""); }, [](json* o) {
    (*o)["metadata"].erase("annotations");
    return (*o)["metadata"].value("name", "") != "refused";
  });
  json kept = Obj("a", "kept", "1");
  kept["metadata"]["annotations"] = {{"big", std::string(1000, 'x')}};
  EXPECT_EQ(store.Apply({WatcherEvent::kRestarted, {kept, Obj("b", "refused", "1")}}), (std::vector<std::string>{"a"}));
  EXPECT_EQ(store.Size(), 1u);
  EXPECT_FALSE((*store.Get("a/kept"))["metadata"].contains("annotations"));
  EXPECT_EQ(store.ByIndex("b").size(), 0u);

  Store by_name([](const json& o) { return o["metadata"].value("namespace", ""); },
                [](json* o) { return (*o)["metadata"].value("resourceVersion", "") != "2"; });
  by_name.Apply({WatcherEvent::kRestarted, {Obj("a", "x", "1")}});
  EXPECT_EQ(by_name.Apply({WatcherEvent::kApplied, {Obj("a", "x", "2")}}), (std::vector<std::string>{"a"}));
  EXPECT_EQ(by_name.Get("a/x"), std::nullopt);
  EXPECT_TRUE(by_name.Apply({WatcherEvent::kApplied, {Obj("a", "y", "2")}}).empty()) << "never held";
  by_name.ApplyOwnWrite(Obj("a", "z", "2"), "");
  EXPECT_EQ(by_name.Get("a/z"), std::nullopt) << "our own writes pass the transform too";
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

json Owned(const std::string& name, const std::string& owner, const std::string& rv) {
  json object = Obj("ns", name, rv);
  object["metadata"]["labels"] = {{"owner", owner}};
  return object;
}

std::vector<std::string> Names(const std::vector<json>& objects) {
  std::vector<std::string> names;
  for (const json& o : objects) names.push_back(o["metadata"]["name"]);
  return names;
}

// The watch echoing a write of ours brings nothing new: it is no reason to reconcile again.
TEST(Store, ApplyAnswersWhatChangedTheCache) {
  Store store;
  EXPECT_EQ(store.Apply({WatcherEvent::kRestarted, {Obj("a", "x", "1")}}).size(), 1u);
  store.ApplyOwnWrite(Obj("a", "x", "2"), "1");
  store.ApplyOwnWrite(Obj("a", "new", "3"), "");
  EXPECT_EQ(store.Apply({WatcherEvent::kApplied, {Obj("a", "x", "2"), Obj("a", "new", "3"), Obj("a", "y", "4")}}),
            std::vector<std::string>{"a/y"});
  EXPECT_EQ(store.Apply({WatcherEvent::kApplied, {Obj("a", "x", "5")}}).size(), 1u);
  EXPECT_EQ(store.Apply({WatcherEvent::kDeleted, {Obj("a", "x", "6")}}).size(), 1u);
  EXPECT_EQ(store.Apply({WatcherEvent::kRestarted, {Obj("a", "new", "3")}}).size(), 1u);  // a re-list: all
}

TEST(Store, TheIndexFollowsEveryChange) {
  Store store([](const json& o) { return o["metadata"]["labels"].value("owner", ""); });
  store.Apply({WatcherEvent::kRestarted, {Owned("p1", "a", "1"), Owned("p2", "a", "1"), Owned("p3", "b", "1")}});
  EXPECT_EQ(Names(store.ByIndex("a")), (std::vector<std::string>{"p1", "p2"}));
  EXPECT_EQ(Names(store.ByIndex("b")), std::vector<std::string>{"p3"});
  EXPECT_TRUE(store.ByIndex("c").empty());

  store.Apply({WatcherEvent::kApplied, {Owned("p2", "b", "2")}});  // relabelled: it moves
  EXPECT_EQ(Names(store.ByIndex("a")), std::vector<std::string>{"p1"});
  EXPECT_EQ(Names(store.ByIndex("b")), (std::vector<std::string>{"p2", "p3"}));
  EXPECT_EQ(store.ByIndex("b")[0]["metadata"]["resourceVersion"], "2");

  store.Apply({WatcherEvent::kDeleted, {Owned("p1", "a", "3")}});
  EXPECT_TRUE(store.ByIndex("a").empty());
  store.ApplyOwnWrite(Owned("p4", "a", "1"), "");
  store.ApplyOwnWrite(Owned("p3", "a", "2"), "1");
  EXPECT_EQ(Names(store.ByIndex("a")), (std::vector<std::string>{"p3", "p4"}));
  EXPECT_EQ(Names(store.ByIndex("b")), std::vector<std::string>{"p2"});

  store.Apply({WatcherEvent::kRestarted, {Owned("p5", "b", "9")}});  // a re-list replaces it all
  EXPECT_TRUE(store.ByIndex("a").empty());
  EXPECT_EQ(Names(store.ByIndex("b")), std::vector<std::string>{"p5"});
  EXPECT_EQ(store.Size(), 1u);
}

}  // namespace
}  // namespace ergobench::runtime

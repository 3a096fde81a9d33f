// The Manager's order and stop paths, on sources scripted in memory and a real HTTP server.
#include "kube/runtime/manager.h"

#include <gtest/gtest.h>

#include <mutex>
#include <set>
#include <thread>

#include "tests/testing/fake_transport.h"

namespace ergobench::runtime {
namespace {

using nlohmann::json;

json Object(const std::string& name) { return {{"metadata", {{"namespace", "ns"}, {"name", name}}}}; }

// Lists `items` (or fails with `list_error`) and then holds its watch open until the stop.
class ScriptedSource : public ListWatch {
 public:
  ScriptedSource(std::vector<json> items, const StopFlag* stop, Status list_error = Status::Ok())
      : items_(std::move(items)), stop_(stop), list_error_(std::move(list_error)) {}
  StatusOr<kube::ObjectList> List() override {
    if (!list_error_.ok()) return list_error_;
    return kube::ObjectList{items_, "1"};
  }
  Status Watch(const std::string&, const std::function<Status(kube::WatchEvent&& event)>&) override {
    while (!stop_->stopped()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return Status::Ok();
  }

 private:
  std::vector<json> items_;
  const StopFlag* stop_;
  Status list_error_;
};

class ManagerTest : public ::testing::Test {
 protected:
  ManagerOptions Options() {
    ManagerOptions options;
    options.metrics_host = "127.0.0.1";
    options.metrics_port = 0;
    options.render_metrics = [] { return std::string("x 1\n"); };
    return options;
  }
  testing::FakeTransport transport_;
  kube::KubeClient client_{&transport_};
  RealTime time_;
};

TEST_F(ManagerTest, ReconcilesEveryCachedKeyAfterTheCachesSyncAndStopsCleanly) {
  Manager manager(&client_, &time_, Options());
  std::mutex mutex;
  std::set<std::string> reconciled;
  WorkQueue* queue = manager.AddController(
      "benchmark", [&](const std::string& key) -> ReconcileResult {
        EXPECT_TRUE(manager.Ready()) << "reconciled " << key << " before every cache synced";
        std::lock_guard<std::mutex> lock(mutex);
        reconciled.insert(key);
        if (reconciled.size() == 2) manager.Stop();
        return Result::Done();
      });
  manager.AddCache("benchmarks", std::make_unique<ScriptedSource>(std::vector<json>{Object("a"), Object("b")}, &manager.stop()),
                   [](const json& o) { return ObjectKey(o); }, {{queue, nullptr}});
  manager.AddCache("pods", std::make_unique<ScriptedSource>(std::vector<json>{}, &manager.stop()),
                   [](const json&) { return std::string(); });
  std::atomic<bool> ready_when_runnable_started{false};
  manager.AddRunnable([&](StopFlag&) { ready_when_runnable_started = manager.Ready(); });
  EXPECT_FALSE(manager.Ready());
  EXPECT_EQ(manager.Run(), kManagerStopped);
  EXPECT_EQ(reconciled, (std::set<std::string>{"ns/a", "ns/b"}));
  EXPECT_TRUE(ready_when_runnable_started.load());
}

// A Dataset's events reach its own controller, and, mapped, the Benchmarks that read it. Every
// controller is observed alike, under its own name.
TEST_F(ManagerTest, RoutesSendACachesEventsToEachControllerAsTheirKeys) {
  std::mutex mutex;
  std::multiset<std::string> observed;
  ManagerOptions options = Options();
  options.on_reconcile = [&](const std::string& controller, const std::string& result, double) {
    std::lock_guard<std::mutex> lock(mutex);
    observed.insert(controller + " " + result);
  };
  Manager manager(&client_, &time_, options);
  std::set<std::string> benchmark_keys, dataset_keys;
  const auto stop_when_both = [&] {
    if (benchmark_keys.size() == 2 && dataset_keys.size() == 1) manager.Stop();
  };
  WorkQueue* datasets = manager.AddController(
      "dataset", [&](const std::string& key) -> ReconcileResult {
        std::lock_guard<std::mutex> lock(mutex);
        dataset_keys.insert(key);
        stop_when_both();
        return Result::RequeueAfter(std::chrono::seconds(60));
      });
  WorkQueue* benchmarks = manager.AddController(
      "benchmark", [&](const std::string& key) -> ReconcileResult {
        std::lock_guard<std::mutex> lock(mutex);
        if (benchmark_keys.insert(key).second && key.ends_with("-1")) return Status::Unavailable("try again");
        stop_when_both();
        return Result::Done();
      });
  manager.AddCache("datasets", std::make_unique<ScriptedSource>(std::vector<json>{Object("cifar")}, &manager.stop()),
                   [](const json& o) { return ObjectKey(o); },
                   {{datasets, nullptr},
                    {benchmarks, [](const std::string& key) {
                       return std::vector<std::string>{key + "-reader-1", key + "-reader-2"};
                     }}});
  EXPECT_EQ(manager.Run(), kManagerStopped);
  EXPECT_EQ(dataset_keys, (std::set<std::string>{"ns/cifar"}));
  EXPECT_EQ(benchmark_keys, (std::set<std::string>{"ns/cifar-reader-1", "ns/cifar-reader-2"}));
  EXPECT_EQ(observed.count("dataset requeue_after"), 1u);
  EXPECT_EQ(observed.count("benchmark error"), 1u);
  EXPECT_GE(observed.count("benchmark success"), 1u);
}

// The audit's deadlock: readiness waited for the lease, so a rollout's new pod (the old one
// still leading) never became Ready and the old one was never stopped. A standby is Ready once
// its caches have synced, reconciles nothing, and takes over hot when the lease frees.
TEST_F(ManagerTest, AStandbyIsReadyWithWarmCachesAndReconcilesOnlyOnceItLeads) {
  std::atomic<bool> held_by_other{true};
  transport_.handler = [&held_by_other](const kube::HttpRequest& r) -> StatusOr<kube::HttpResponse> {
    if (r.method == "GET") {
      const json lease = {{"metadata", {{"name", "ergobench-operator"}, {"namespace", "ns"}, {"resourceVersion", "1"}}},
                          {"spec",
                           {{"holderIdentity", held_by_other ? "old-pod" : ""},
                            {"leaseDurationSeconds", 15},
                            {"renewTime", "2026-11-23T10:00:00.000000Z"}}}};
      return kube::HttpResponse{200, lease.dump()};
    }
    return kube::HttpResponse{200, r.body};  // the replace that takes the lease
  };
  ManagerOptions options = Options();
  LeaderElectionConfig lease;
  lease.namespace_name = "ns";
  lease.identity = "new-pod";
  lease.retry_period = std::chrono::milliseconds(20);
  options.leader_election = lease;
  Manager manager(&client_, &time_, options);
  std::atomic<int> reconciles{0};
  WorkQueue* queue = manager.AddController(
      "benchmark", [&](const std::string&) -> ReconcileResult {
        EXPECT_FALSE(held_by_other.load()) << "a standby reconciled";
        ++reconciles;
        manager.Stop();
        return Result::Done();
      });
  manager.AddCache("benchmarks", std::make_unique<ScriptedSource>(std::vector<json>{Object("a")}, &manager.stop()),
                   [](const json& o) { return ObjectKey(o); }, {{queue, nullptr}});
  std::thread run([&manager] { EXPECT_EQ(manager.Run(), kManagerStopped); });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!manager.Ready() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(manager.Ready()) << "a standby with synced caches is Ready";
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(reconciles.load(), 0);
  held_by_other = false;  // the old pod hands the lease back
  run.join();
  EXPECT_EQ(reconciles.load(), 1);
}

TEST_F(ManagerTest, AWatchTheRbacForbidsEndsTheRunWithAFailure) {
  Manager manager(&client_, &time_, Options());
  manager.AddCache("pods",
                   std::make_unique<ScriptedSource>(std::vector<json>{}, &manager.stop(),
                                                    Status::PermissionDenied("pods is forbidden")),
                   [](const json&) { return std::string(); });
  EXPECT_EQ(manager.Run(), kManagerFailed);
  EXPECT_FALSE(manager.Ready());
}

TEST_F(ManagerTest, AThrowingRunnableStopsTheManagerWithAFailureInsteadOfTerminating) {
  Manager manager(&client_, &time_, Options());
  manager.AddCache("pods", std::make_unique<ScriptedSource>(std::vector<json>{}, &manager.stop()),
                   [](const json&) { return std::string(); });
  manager.AddRunnable([](StopFlag&) { json::parse("[1]").at("phase"); });  // type_error
  EXPECT_EQ(manager.Run(), kManagerFailed);
}

TEST_F(ManagerTest, AServerThatCannotStartIsReportedBeforeAnythingElse) {
  ManagerOptions options = Options();
  options.metrics_host = "not-an-address";
  Manager manager(&client_, &time_, options);
  EXPECT_EQ(manager.Run(), kManagerCannotStart);
}

}  // namespace
}  // namespace ergobench::runtime

#include "operator/controller/benchmark/progress_poller.h"

#include <gtest/gtest.h>

#include <map>

#include "operator/controller/benchmark/builders.h"
#include "operator/controller/benchmark/worker_pods.h"

namespace ergobench::controller {
namespace {

using nlohmann::json;

json PolledBenchmark(const std::string& name, const std::string& phase, int64_t restarts = 0) {
  return {{"apiVersion", "ergobench.io/v1alpha1"},
          {"kind", "Benchmark"},
          {"metadata", {{"namespace", "ns"}, {"name", name}, {"uid", "uid-" + name}, {"generation", 1}}},
          {"spec", {{"task", "fmnist"}, {"workers", 2}}},
          {"status", {{"phase", phase}, {"observedGeneration", 1}, {"restarts", restarts}}}};
}

json RankPod(const std::string& benchmark, int rank, int attempt, const std::string& ip,
         const std::string& owner_uid = "", int generation = 1) {
  return {{"metadata",
           {{"namespace", "ns"},
            // Unique, as in a cluster: the gang and owner make a name of its own here.
            {"name", benchmark + "-worker-" + std::to_string(rank) + "-" + std::to_string(generation) + "." +
                         std::to_string(attempt) + owner_uid},
            {"labels",
             {{kBenchmarkLabel, benchmark},
              {kRankLabel, std::to_string(rank)},
              {kAttemptLabel, std::to_string(attempt)},
              {kGenerationLabel, std::to_string(generation)}}},
            {"ownerReferences",
             {{{"uid", owner_uid.empty() ? "uid-" + benchmark : owner_uid}, {"controller", true}}}}}},
          {"status", {{"phase", "Running"}, {"podIP", ip}}}};
}

void Fill(runtime::Store* store, std::vector<json> objects) {
  store->Apply(runtime::WatcherEvent{runtime::WatcherEvent::kRestarted, std::move(objects)});
}

class ScriptedReader : public RankZeroClient {
 public:
  std::optional<RankZeroState> Read(const std::string& pod_ip, int port, const std::string& metric) override {
    reads.push_back(pod_ip + ":" + std::to_string(port) + " " + metric);
    const auto it = answers.find(pod_ip);
    if (it == answers.end()) return RankZeroState{std::nullopt, offered.contains(pod_ip)};
    return RankZeroState{it->second, offered.contains(pod_ip)};
  }
  StatusOr<ArtifactBundle> FetchArtifacts(const std::string& pod_ip, int port, const std::string& uid) override {
    calls.push_back("fetch " + pod_ip + ":" + std::to_string(port) + " " + uid);
    if (fetch_fails) return Status::Unavailable("connection refused");
    return offered.at(pod_ip);
  }
  Status ReleaseArtifacts(const std::string& pod_ip, int port, const std::string& uid) override {
    calls.push_back("release " + pod_ip + ":" + std::to_string(port) + " " + uid);
    return Status::Ok();
  }
  std::map<std::string, Progress> answers;
  std::map<std::string, ArtifactBundle> offered;
  bool fetch_fails = false;
  std::vector<std::string> reads;
  std::vector<std::string> calls;
};

std::vector<std::string> PollProgressOnce(const std::vector<ProgressTarget>& targets, RankZeroClient& client,
                                          ProgressCache& cache) {
  ArtifactCache artifacts;
  return PollRankZeroOnce(targets, client, {&cache, &artifacts});
}

Progress At(int64_t step) {
  Progress progress;
  progress.epoch = 1;
  progress.step = step;
  progress.metric = "accuracy";
  progress.value = 0.5;
  return progress;
}

TEST(ProgressTargetsTest, RankZeroOfTheCurrentGangOfRunningBenchmarksOnly) {
  runtime::Store benchmarks;
  Fill(&benchmarks, {PolledBenchmark("run", "Running", /*restarts=*/1), PolledBenchmark("wait", "Pending"),
                     PolledBenchmark("done", "Succeeded")});
  runtime::Store pods{WorkerPodOwnerKey};
  Fill(&pods, {
      RankPod("run", 0, 0, "10.0.0.1"),           // the previous attempt
      RankPod("run", 0, 1, "10.0.0.6", "", 0),    // the same attempt of an earlier spec
      RankPod("run", 0, 1, "10.0.0.2"),           // this one
      RankPod("run", 1, 1, "10.0.0.3"),           // not rank 0
      RankPod("run", 0, 1, "10.0.0.9", "stale"),  // a deleted namesake's pod
      RankPod("wait", 0, 0, "10.0.0.4"), RankPod("done", 0, 0, "10.0.0.5"),
  });
  const std::vector<ProgressTarget> targets = ProgressTargets(benchmarks, pods);
  ASSERT_EQ(targets.size(), 1u);
  EXPECT_EQ(targets[0].key, "ns/run");
  EXPECT_EQ(targets[0].gang, (Gang{1, 1}));
  EXPECT_EQ(targets[0].pod_ip, "10.0.0.2");
  EXPECT_EQ(targets[0].goal_metric, "accuracy");  // the catalog's goal for fmnist
  EXPECT_EQ(targets[0].uid, "uid-run");           // whose artifact token rank 0 asks for
}

TEST(PollProgressOnceTest, QueuesABenchmarkOnlyWhenItsProgressMoves) {
  ScriptedReader reader;
  ProgressCache cache;
  const std::vector<ProgressTarget> targets = {{"ns/a", {1, 0}, "10.0.0.1", "accuracy"},
                                                {"ns/b", {1, 0}, "10.0.0.2", ""}};
  reader.answers["10.0.0.1"] = At(10);  // b is still initialising: nothing to read

  EXPECT_EQ(PollProgressOnce(targets, reader, cache), std::vector<std::string>{"ns/a"});
  EXPECT_EQ(reader.reads, (std::vector<std::string>{"10.0.0.1:9400 accuracy", "10.0.0.2:9400 "}));
  EXPECT_TRUE(PollProgressOnce(targets, reader, cache).empty());  // unchanged
  reader.answers["10.0.0.1"] = At(20);
  EXPECT_EQ(PollProgressOnce(targets, reader, cache), std::vector<std::string>{"ns/a"});
  EXPECT_EQ(cache.Get("ns/a", {1, 0})->step, 20);
  EXPECT_FALSE(cache.Get("ns/a", {1, 1}).has_value());  // a restarted gang starts without progress
  EXPECT_FALSE(cache.Get("ns/a", {2, 0}).has_value());  // and so does the gang of an edited spec
  EXPECT_FALSE(cache.Get("ns/b", {1, 0}).has_value());
}

// The status shows the communication ratio of the steps since the last read: the first read
// has none, and a read with no new step keeps the last.
TEST(ProgressCacheTest, KeepsTheRecentCommunicationRatioOfItsGang) {
  ProgressCache cache;
  EXPECT_TRUE(cache.Put("ns/a", {1, 0}, At(10), StepTimeTotals{10, 2}));
  EXPECT_FALSE(cache.Get("ns/a", {1, 0})->communication_ratio.has_value());
  EXPECT_TRUE(cache.Put("ns/a", {1, 0}, At(20), StepTimeTotals{20, 8}));
  EXPECT_EQ(cache.Get("ns/a", {1, 0})->communication_ratio, 0.6);
  EXPECT_FALSE(cache.Put("ns/a", {1, 0}, At(20), StepTimeTotals{20, 8}));
  EXPECT_EQ(cache.Get("ns/a", {1, 0})->communication_ratio, 0.6);
  EXPECT_TRUE(cache.Put("ns/a", {1, 1}, At(5), StepTimeTotals{30, 9})) << "a restarted gang";
  EXPECT_FALSE(cache.Get("ns/a", {1, 1})->communication_ratio.has_value()) << "never measured against another gang's";
}

TEST(PollProgressOnceTest, FinishedBenchmarksAreForgotten) {
  ScriptedReader reader;
  ProgressCache cache;
  reader.answers["10.0.0.1"] = At(5);
  PollProgressOnce({{"ns/a", {1, 0}, "10.0.0.1", ""}}, reader, cache);
  ASSERT_TRUE(cache.Get("ns/a", {1, 0}).has_value());
  PollProgressOnce({}, reader, cache);  // ns/a is no longer Running
  EXPECT_FALSE(cache.Get("ns/a", {1, 0}).has_value());
}

// Rank 0 waits after its run until its files are taken: once taken, the poller lets it go,
// and queues the Benchmark, whose finishing reconcile keeps them.
TEST(PollRankZeroOnceTest, TakesOfferedFilesOnceThenReleasesRankZero) {
  ScriptedReader client;
  ProgressCache progress;
  ArtifactCache artifacts;
  ArtifactBundle bundle;
  bundle.files["rank-0.mllog"] = ":::MLLOG {}\n";
  client.answers["10.0.0.1"] = At(10);
  const std::vector<ProgressTarget> targets = {{"ns/a", {1, 0}, "10.0.0.1", "", "uid-a"}};
  PollRankZeroOnce(targets, client, {&progress, &artifacts});
  EXPECT_TRUE(client.calls.empty()) << "nothing is offered while the run goes on";

  client.offered["10.0.0.1"] = bundle;
  EXPECT_EQ(PollRankZeroOnce(targets, client, {&progress, &artifacts}), std::vector<std::string>{"ns/a"});
  EXPECT_EQ(client.calls, (std::vector<std::string>{"fetch 10.0.0.1:9400 uid-a", "release 10.0.0.1:9400 uid-a"}));
  EXPECT_EQ(artifacts.Get("ns/a", {1, 0}), bundle);
  EXPECT_FALSE(artifacts.Get("ns/a", {1, 1}).has_value()) << "another gang's files are not these";

  // A release that did not reach it is sent again, without a second fetch.
  client.calls.clear();
  EXPECT_TRUE(PollRankZeroOnce(targets, client, {&progress, &artifacts}).empty());
  EXPECT_EQ(client.calls, (std::vector<std::string>{"release 10.0.0.1:9400 uid-a"}));
}

TEST(PollRankZeroOnceTest, AFailedFetchKeepsRankZeroWaitingForTheNextRound) {
  ScriptedReader client;
  ProgressCache progress;
  ArtifactCache artifacts;
  client.offered["10.0.0.1"] = ArtifactBundle{};
  client.fetch_fails = true;
  const std::vector<ProgressTarget> targets = {{"ns/a", {1, 0}, "10.0.0.1", ""}};
  EXPECT_TRUE(PollRankZeroOnce(targets, client, {&progress, &artifacts}).empty());
  EXPECT_EQ(client.calls, std::vector<std::string>{"fetch 10.0.0.1:9400 "});
  EXPECT_FALSE(artifacts.Has("ns/a", {1, 0}));
  client.fetch_fails = false;
  EXPECT_EQ(PollRankZeroOnce(targets, client, {&progress, &artifacts}), std::vector<std::string>{"ns/a"});
  EXPECT_TRUE(artifacts.Has("ns/a", {1, 0}));
}

TEST(ArtifactCacheTest, KeptUntilForgottenOrTheBenchmarkIsNoLongerRunning) {
  ArtifactCache artifacts;
  artifacts.Put("ns/a", {1, 0}, ArtifactBundle{});
  artifacts.Put("ns/b", {1, 0}, ArtifactBundle{});
  artifacts.Retain({"ns/a"});
  EXPECT_TRUE(artifacts.Has("ns/a", {1, 0}));
  EXPECT_FALSE(artifacts.Has("ns/b", {1, 0}));
  artifacts.Forget("ns/a");
  EXPECT_FALSE(artifacts.Has("ns/a", {1, 0}));
}

TEST(RunningKeysTest, OnlyRunningBenchmarks) {
  runtime::Store benchmarks;
  Fill(&benchmarks, {PolledBenchmark("run", "Running"), PolledBenchmark("wait", "Pending"),
                     PolledBenchmark("done", "Succeeded")});
  EXPECT_EQ(RunningKeys(benchmarks), std::vector<std::string>{"ns/run"});
}

}  // namespace
}  // namespace ergobench::controller

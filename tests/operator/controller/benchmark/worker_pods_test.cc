#include "operator/controller/benchmark/worker_pods.h"

#include <gtest/gtest.h>

#include "api/v1alpha1/defaults.h"

namespace ergobench::controller {
namespace {

using nlohmann::json;

const char kFailedPod[] = R"({
  "metadata": {"name": "b-worker-1", "deletionTimestamp": "2026-11-22T06:00:00Z",
               "labels": {"ergobench.io/rank": "1", "ergobench.io/attempt": "2",
                          "ergobench.io/generation": "4"}},
  "status": {"phase": "Failed", "podIP": "10.244.0.3",
             "conditions": [{"type": "Ready", "status": "False"}],
             "containerStatuses": [{"name": "runner", "state": {"terminated": {
                 "exitCode": 137, "reason": "OOMKilled", "message": "Killed\n",
                 "finishedAt": "2026-11-22T05:59:00Z"}}}]}})";

// The audit's Medium: the pod cache took any pod with the benchmark label, which anyone who
// creates pods may set, annotations and managedFields included.
TEST(WorkerPods, TheCacheKeepsOnlyPodsABenchmarkControlsTrimmed) {
  nlohmann::json pod = {{"metadata",
                         {{"name", "b-worker-0"},
                          {"labels", {{"ergobench.io/benchmark", "b"}}},
                          {"annotations", {{"a", std::string(100000, 'x')}}},
                          {"managedFields", nlohmann::json::array({{{"manager", "kubectl"}}})}}}};
  EXPECT_FALSE(TrimWorkerPod(&pod)) << "a label, no owner";
  pod["metadata"]["ownerReferences"] = {{{"apiVersion", "apps/v1"}, {"kind", "Benchmark"}, {"controller", true}}};
  EXPECT_FALSE(TrimWorkerPod(&pod)) << "another group's Benchmark";
  pod["metadata"]["ownerReferences"] = {{{"apiVersion", "ergobench.io/v1alpha1"}, {"kind", "Benchmark"}}};
  EXPECT_FALSE(TrimWorkerPod(&pod)) << "an owner, not the controller";
  pod["metadata"]["ownerReferences"] = "not a list";
  EXPECT_FALSE(TrimWorkerPod(&pod));
  pod["metadata"]["ownerReferences"] = {{{"apiVersion", "ergobench.io/v1alpha1"}, {"kind", "Benchmark"},
                                          {"name", "b"}, {"uid", "u"}, {"controller", true}}};
  ASSERT_TRUE(TrimWorkerPod(&pod));
  EXPECT_FALSE(pod["metadata"].contains("annotations"));
  EXPECT_FALSE(pod["metadata"].contains("managedFields"));
  EXPECT_EQ(pod["metadata"]["labels"]["ergobench.io/benchmark"], "b");
}

TEST(WorkerPods, ReadsStatusAndLabels) {
  const WorkerPod pod = ReadWorkerPod(json::parse(kFailedPod));
  EXPECT_EQ(pod.name, "b-worker-1");
  EXPECT_EQ(pod.rank, 1);
  EXPECT_EQ(pod.attempt, 2);
  EXPECT_EQ(pod.generation, 4);
  EXPECT_EQ(pod.phase, "Failed");
  EXPECT_FALSE(pod.ready);
  EXPECT_TRUE(pod.terminating);
  EXPECT_EQ(pod.pod_ip, "10.244.0.3");
  EXPECT_EQ(pod.exit_code, 137);
  EXPECT_EQ(pod.termination_reason, "OOMKilled");
  EXPECT_EQ(pod.finished_at, "2026-11-22T05:59:00Z");
}

// Where the scheduler put a pod, or why it could not.
TEST(WorkerPods, ReadsPlacement) {
  const WorkerPod placed = ReadWorkerPod(json::parse(R"({"metadata": {"name": "p"}, "spec": {"nodeName": "n1"},
      "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "True"}]}})"));
  EXPECT_TRUE(placed.placed);
  EXPECT_EQ(placed.node_name, "n1");
  EXPECT_EQ(placed.unschedulable, "");
  // The binding's condition alone says so too.
  EXPECT_TRUE(ReadWorkerPod(json::parse(R"({"metadata": {"name": "p"},
      "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "True"}]}})")).placed);
  const WorkerPod waiting = ReadWorkerPod(json::parse(R"({"metadata": {"name": "p"}, "spec": {},
      "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
          "reason": "Unschedulable", "message": "0/1 nodes are available: 1 Insufficient cpu."}]}})"));
  EXPECT_FALSE(waiting.placed);
  EXPECT_EQ(waiting.unschedulable, "0/1 nodes are available: 1 Insufficient cpu.");
  // Not yet looked at by the scheduler: neither.
  const WorkerPod fresh = ReadWorkerPod(json::parse(R"({"metadata": {"name": "p"}, "status": {"phase": "Pending"}})"));
  EXPECT_FALSE(fresh.placed);
  EXPECT_EQ(fresh.unschedulable, "");
}

TEST(WorkerPods, MalformedLabelsAreNotRanks) {
  const WorkerPod pod = ReadWorkerPod(json::parse(R"({"metadata":{"name":"x","labels":{"ergobench.io/rank":"1a"}}})"));
  EXPECT_EQ(pod.rank, -1);
  EXPECT_EQ(pod.attempt, -1);
  EXPECT_EQ(pod.generation, -1);
  EXPECT_EQ(pod.phase, "Pending");
}

TEST(WorkerPods, AResultlessPodSaysHowItEnded) {
  Benchmark b;
  b.metadata.name = "b";
  b.spec.task = "fmnist";
  b.spec.workers = 2;
  const RankResult r = RankResultOf(ReadWorkerPod(json::parse(kFailedPod)), b);
  EXPECT_EQ(r.status, kRankFailed);
  EXPECT_EQ(r.rank, 1);
  EXPECT_EQ(r.world_size, 2);
  EXPECT_EQ(r.error, "pod b-worker-1 ended with exit code 137 (OOMKilled) without a result; last log lines:\nKilled\n");
}

// A node whose kubelet stopped reporting: the node lifecycle controller sets its Ready
// condition Unknown (after node-monitor-grace-period) and every pod on it Ready False. Those
// pods are the ones whose node is read; the node's own words say why it is lost, bounded.
TEST(WorkerPods, APodMarkedNotReadyOnANodeThatStoppedReportingIsLost) {
  json pod = {{"metadata", {{"name", "b-worker-1"}}},
              {"spec", {{"nodeName", "n2"}}},
              {"status", {{"phase", "Running"}, {"conditions", {{{"type", "Ready"}, {"status", "False"}}}}}}};
  EXPECT_TRUE(MayBeOnLostNode(ReadWorkerPod(pod)));
  pod["status"]["conditions"][0]["status"] = "True";
  EXPECT_FALSE(MayBeOnLostNode(ReadWorkerPod(pod)));
  pod["status"]["conditions"] = json::array();
  EXPECT_FALSE(MayBeOnLostNode(ReadWorkerPod(pod))) << "not yet known is not marked";
  EXPECT_FALSE(MayBeOnLostNode(ReadWorkerPod(json::parse(kFailedPod)))) << "an ended pod has nothing to lose";

  const json unknown = {{"status", {{"conditions", {{{"type", "MemoryPressure"}, {"status", "Unknown"}},
                                                    {{"type", "Ready"}, {"status", "Unknown"},
                                                     {"reason", "NodeStatusUnknown"},
                                                     {"message", "Kubelet stopped posting node status."}}}}}}};
  EXPECT_EQ(LostNodeOf("n2", unknown), "node n2 stopped reporting (NodeStatusUnknown: Kubelet stopped posting node status.)");
  EXPECT_EQ(LostNodeOf("n2", std::nullopt), "node n2 no longer exists");
  json not_ready = unknown;
  not_ready["status"]["conditions"][1]["status"] = "False";
  EXPECT_EQ(LostNodeOf("n2", not_ready), "") << "a kubelet that says NotReady still runs and stops its own pods";
  EXPECT_EQ(LostNodeOf("n2", json::object()), "");
  EXPECT_EQ(LostNodeOf("n2", json{{"status", "x"}}), "");
  EXPECT_EQ(LostNodeOf("n2", json::array({1})), "");
  EXPECT_EQ(LostNodeOf("n2", json{{"status", {{"conditions", {1, "x", {{"type", 7}}}}}}}), "");
  EXPECT_EQ(LostNodeOf("n2", json{{"status", {{"conditions", {{{"type", "Ready"}, {"status", "Unknown"}, {"reason", 7}}}}}}}),
            "node n2 stopped reporting");
  json loud = unknown;
  loud["status"]["conditions"][1]["message"] = std::string(100000, 'x');
  EXPECT_EQ(LostNodeOf("n2", loud).size(), std::string("node n2 stopped reporting (NodeStatusUnknown: ").size() + 256 - 19 + 1);
}

TEST(WorkerPods, Counts) {
  std::vector<WorkerPod> pods(4);
  pods[0].phase = "Running";
  pods[0].ready = true;
  pods[1].phase = "Running";
  pods[2].phase = "Succeeded";
  pods[3].phase = "Failed";
  const WorkerCounts counts = CountWorkers(pods);
  EXPECT_EQ(counts.ready, 1);
  EXPECT_EQ(counts.running, 2);
  EXPECT_EQ(counts.succeeded, 1);
  EXPECT_EQ(counts.failed, 1);
}

}  // namespace
}  // namespace ergobench::controller

namespace ergobench::controller {
namespace {

TEST(WorkerPods, AnMpiLauncherIsKnownByItsRole) {
  const WorkerPod launcher = ReadWorkerPod(nlohmann::json::parse(R"({"metadata": {"name": "b-launcher",
      "labels": {"ergobench.io/role": "launcher", "ergobench.io/attempt": "0", "ergobench.io/generation": "1"}}})"));
  EXPECT_TRUE(launcher.launcher);
  EXPECT_EQ(launcher.rank, -1);
  EXPECT_FALSE(ReadWorkerPod(nlohmann::json::parse(kFailedPod)).launcher);
  EXPECT_FALSE(ReadWorkerPod(nlohmann::json::parse(R"({"metadata": {"labels": {"ergobench.io/role": 7}}})")).launcher);
}

}  // namespace
}  // namespace ergobench::controller

// Golden tests of the pure builders (testing/golden.h).
#include "operator/controller/benchmark/builders.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "api/v1alpha1/benchmark_codec.h"
#include "api/v1alpha1/defaults.h"
#include "api/v1alpha1/validation.h"
#include "operator/controller/benchmark/progress_poller.h"
#include "operator/controller/benchmark/worker_pods.h"
#include "tests/testing/golden.h"

namespace ergobench::controller {
namespace {

using nlohmann::json;

using testing::ExpectGolden;

Benchmark Task1a() {
  Benchmark b;
  b.api_version = kApiVersion;
  b.kind = kKind;
  b.metadata.name = "task1a-k4";
  b.metadata.namespace_name = "bench";
  b.metadata.uid = "0b9d2c1e-5f3a-4c0e-9a7b-1d2e3f405162";
  b.metadata.generation = 3;
  b.spec.task = "1a";
  b.spec.workers = 4;
  b.spec.image = "registry.example/ergobench-runner:1.0";
  b.spec.resources = {"3", "8Gi", 0};
  b.spec.scheduling.node_selector = {{"node.kubernetes.io/instance-type", "n1-standard-4"}};
  b.spec.scheduling.tolerations = json::array({{{"key", "dedicated"}, {"operator", "Equal"}, {"value", "bench"},
                                                {"effect", "NoSchedule"}}});
  b.spec.scheduling.priority_class_name = "benchmarks";
  ApplyDefaults(&b);
  return b;
}

TEST(Builders, Names) {
  const Benchmark b = Task1a();
  EXPECT_EQ(WorkerServiceName(b), "task1a-k4-workers");
  EXPECT_EQ(ConfigMapName(b), "task1a-k4-config");
  EXPECT_EQ(WorkerPodName(b, 3), "task1a-k4-worker-3");
  EXPECT_EQ(MasterAddress(b), "task1a-k4-worker-0.task1a-k4-workers");
}

// The audit's SSRF: ranks that fetch their own data set (source url) refuse internal addresses
// as a Dataset's staging does; other pods are left as they were.
TEST(Builders, RanksThatFetchRefuseInternalAddresses) {
  Benchmark b = Task1a();
  json pod = BuildWorkerPod(b, 0, {1, 0});
  const json before = pod;
  RestrictFetches(b, {"10.20.0.0/16"}, &pod);
  EXPECT_EQ(pod, before) << "synthetic data: nothing fetched";
  b.spec.dataset.source = "url";
  b.spec.dataset.url = "https://files.example/cifar-10-binary.tar.gz";
  RestrictFetches(b, {"10.20.0.0/16", "fd00::/8"}, &pod);
  const json& env = pod["spec"]["containers"][0]["env"];
  EXPECT_EQ(env[env.size() - 2], json({{"name", "ERGOBENCH_FETCH_REFUSE_INTERNAL"}, {"value", "1"}}));
  EXPECT_EQ(env.back(), json({{"name", "ERGOBENCH_FETCH_ALLOWED_NETWORKS"}, {"value", "10.20.0.0/16,fd00::/8"}}));
}

TEST(Builders, HeadlessService) { ExpectGolden(BuildWorkerService(Task1a()), "service.json"); }

TEST(Builders, ConfigMapHoldsTheResolvedSpec) {
  const json cm = BuildConfigMap(Task1a());
  ExpectGolden(cm, "configmap.json");
  // The runner reads it back: the resolved spec, not the user's partial one.
  const json config = json::parse(cm["data"]["benchmark.json"].get<std::string>());
  EXPECT_EQ(config["spec"]["maxEpochs"], 164);
  EXPECT_FALSE(config.contains("status"));
}

// A Benchmark reading a volume (a Dataset's claim, resolved) hands its ranks a plain local
// path: the runner validates the config it reads, and knows nothing of claims.
TEST(Builders, ConfigMapOfAVolumeReaderNamesThePathInThePod) {
  Benchmark b = Task1a();
  b.spec.dataset.source = "path";
  b.spec.dataset.ref = "cifar10";
  b.spec.dataset.volume = {{"persistentVolumeClaim", {{"claimName", "cifar10-data"}, {"readOnly", true}}}};
  b.spec.dataset.path = "abc/data/cifar-10-batches-bin";
  const json cm = BuildConfigMap(b);
  const json config = json::parse(cm["data"]["benchmark.json"].get<std::string>());
  const json& dataset = config["spec"]["dataset"];
  EXPECT_EQ(dataset["path"], "/data/abc/data/cifar-10-batches-bin");
  EXPECT_FALSE(dataset.contains("ref")) << dataset.dump();
  EXPECT_FALSE(dataset.contains("volume")) << dataset.dump();
  FieldErrors errors;
  const Benchmark read = DecodeBenchmark(config, &errors);
  ASSERT_TRUE(errors.empty()) << errors.Joined();
  const FieldErrors invalid = ValidateBenchmark(read);
  EXPECT_TRUE(invalid.empty()) << invalid.Joined();
}

TEST(Builders, WorkerPod) {
  ExpectGolden(BuildWorkerPod(Task1a(), 2, Gang{3, 1}), "pod-rank2-attempt1.json");
}

// One worker per node by default (MLBench): every rank repels the gang's other ranks from its
// node. Only this gang's pods count, so a terminating earlier gang never blocks the new one.
// A later repeat's pods say which repeat they run, and their ranks derive the seed from it.
TEST(Builders, ARepeatsPodsCarryItsLabelAndFlag) {
  const json first = BuildWorkerPod(Task1a(), 2, Gang{3, 1, 0});
  EXPECT_FALSE(first["metadata"]["labels"].contains("ergobench.io/repeat"));
  const json third = BuildWorkerPod(Task1a(), 2, Gang{3, 1, 2});
  EXPECT_EQ(third["metadata"]["labels"]["ergobench.io/repeat"], "2");
  const json args = third["spec"]["containers"][0]["args"];
  const auto flag = std::find(args.begin(), args.end(), "--repeat");
  ASSERT_NE(flag, args.end());
  EXPECT_EQ(*(flag + 1), "2");
  EXPECT_EQ(third["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
                 ["labelSelector"]["matchLabels"]["ergobench.io/repeat"],
            "2");
  EXPECT_EQ(ReadWorkerPod(third).repeat, 2);
  EXPECT_EQ(ReadWorkerPod(first).repeat, 0);
}

TEST(Builders, OneWorkerPerNodeByDefault) {
  const json spec = BuildWorkerPod(Task1a(), 2, Gang{3, 1})["spec"];
  EXPECT_FALSE(spec["affinity"].contains("podAffinity"));
  const json& terms = spec["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"];
  ASSERT_EQ(terms.size(), 1u);
  EXPECT_EQ(terms[0]["topologyKey"], "kubernetes.io/hostname");
  EXPECT_EQ(terms[0]["labelSelector"]["matchLabels"], json({{"ergobench.io/benchmark", "task1a-k4"},
                                                            {"ergobench.io/generation", "3"},
                                                            {"ergobench.io/attempt", "1"}}));
  EXPECT_EQ(terms[0]["labelSelector"]["matchExpressions"],
            json::parse(R"([{"key": "ergobench.io/rank", "operator": "Exists"}, {"key": "ergobench.io/node-group", "operator": "NotIn", "values": ["2"]}])"));
}

// ranksPerNode 2: ranks 2 and 3 are node group 1, drawn to each other's node and kept off the
// nodes of the other groups.
TEST(Builders, RanksPerNodePacksNodeGroups) {
  Benchmark b = Task1a();
  b.spec.scheduling.ranks_per_node = 2;
  const json pod = BuildWorkerPod(b, 3, Gang{3, 0});
  EXPECT_EQ(pod["metadata"]["labels"]["ergobench.io/node-group"], "1");
  const json& affinity = pod["spec"]["affinity"];
  const json& together = affinity["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"];
  ASSERT_EQ(together.size(), 1u);
  EXPECT_EQ(together[0]["labelSelector"]["matchExpressions"],
            json::parse(R"([{"key": "ergobench.io/rank", "operator": "Exists"}, {"key": "ergobench.io/node-group", "operator": "In", "values": ["1"]}])"));
  const json& apart = affinity["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"];
  ASSERT_EQ(apart.size(), 1u);
  EXPECT_EQ(apart[0]["labelSelector"]["matchExpressions"],
            json::parse(R"([{"key": "ergobench.io/rank", "operator": "Exists"}, {"key": "ergobench.io/node-group", "operator": "NotIn", "values": ["1"]}])"));
}

// Ranks that share a node share its energy meters: each reports its part of the node's energy
// (its pod's CPU quota stays its own for threads). 5 workers, 2 a node: the last node has one.
TEST(Builders, RanksSharingANodeShareItsEnergy) {
  Benchmark b = Task1a();
  b.spec.workers = 5;
  b.spec.scheduling.ranks_per_node = 2;
  EXPECT_EQ(WorkerInvocation(b, 3).ranks_on_node, 2);
  EXPECT_EQ(WorkerInvocation(b, 4).ranks_on_node, 1);
  EXPECT_EQ(WorkerInvocation(b, 4).ranks_per_host, 1);
  EXPECT_EQ(WorkerInvocation(Task1a(), 2).ranks_on_node, 1);
}

// With a node energy agent, a rank reads its node's energy from the agent at its node's IP,
// which the kubelet puts into the flag; without one the pod is as before.
TEST(Builders, RanksReadTheirNodesEnergyAgent) {
  const json container = BuildWorkerPod(Task1a(), 1, Gang{3, 0}, {9810})["spec"]["containers"][0];
  const json& env = container["env"];
  const auto node_ip = std::find_if(env.begin(), env.end(), [](const json& e) { return e["name"] == "ERGOBENCH_NODE_IP"; });
  ASSERT_NE(node_ip, env.end()) << env.dump();
  EXPECT_EQ((*node_ip)["valueFrom"]["fieldRef"]["fieldPath"], "status.hostIP");
  const std::vector<std::string> args = container["args"];
  const auto flag = std::find(args.begin(), args.end(), "--energy-agent");
  ASSERT_NE(flag, args.end());
  EXPECT_EQ(*(flag + 1), "$(ERGOBENCH_NODE_IP):9810");
  const json without = BuildWorkerPod(Task1a(), 1, Gang{3, 0})["spec"]["containers"][0];
  EXPECT_EQ(without["args"].dump().find("--energy-agent"), std::string::npos);
  EXPECT_EQ(without["env"].dump().find("ERGOBENCH_NODE_IP"), std::string::npos);
}

// Rank 0 serves the rendezvous and is created last, once every peer is placed: it bounds the
// wait. Its peers wait for it as long as the operator holds it back.
TEST(Builders, RankZeroBoundsTheRendezvous) {
  EXPECT_EQ(WorkerInvocation(Task1a(), 0).rendezvous_timeout_seconds, kPodRendezvousTimeoutSeconds);
  EXPECT_EQ(WorkerInvocation(Task1a(), 1).rendezvous_timeout_seconds, kPeerRendezvousTimeoutSeconds);
  EXPECT_GE(kPeerRendezvousTimeoutSeconds, 86400);
}

// Rank 0's output directory goes with its pod: it alone waits for the operator to keep it.
TEST(Builders, RankZeroOffersItsOutputAndEveryRankLogsWhereALocalRunDoes) {
  const RunnerInvocation rank0 = WorkerInvocation(Task1a(), 0);
  EXPECT_EQ(rank0.artifact_linger_seconds, kArtifactLingerSeconds);
  EXPECT_EQ(rank0.mllog_file, rank0.output_dir + "/rank-{rank}.mllog");
  EXPECT_EQ(WorkerInvocation(Task1a(), 1).artifact_linger_seconds, 0);
  // Several progress rounds, so that a round or two lost to a slow scrape still collects them.
  EXPECT_GE(kArtifactLingerSeconds, 6 * kProgressInterval.count());
}

// The rank records its node: the pod's own spec.nodeName, through the downward API.
TEST(Builders, WorkersKnowTheirNode) {
  const json env = BuildWorkerPod(Task1a(), 1, Gang{3, 0})["spec"]["containers"][0]["env"];
  bool found = false;
  for (const json& var : env) {
    if (var["name"] == "ERGOBENCH_NODE_NAME") {
      found = true;
      EXPECT_EQ(var["valueFrom"]["fieldRef"]["fieldPath"], "spec.nodeName");
    }
  }
  EXPECT_TRUE(found) << env.dump();
}

// Pod Security Standards, "restricted" profile, field by field: what a namespace labelled
// pod-security.kubernetes.io/enforce=restricted admits. And no API token in a pod that never
// calls the API.
// The gang reaches itself on any port; the metrics port only the peers given; no egress rule.
TEST(Builders, AGangsNetworkPolicyAdmitsTheGangAndTheMetricsPeers) {
  ExpectGolden(BuildGangNetworkPolicy(Task1a(), NamespacePeers("ergobench-system")), "networkpolicy.json");
}

TEST(Builders, NetworkPolicyPeersAreAJsonListOfPeerObjects) {
  const auto peers = ParseNetworkPolicyPeers(R"([{"namespaceSelector": {"matchLabels": {"team": "monitoring"}},
                                                 "podSelector": {"matchLabels": {"app": "prometheus"}}},
                                                {"ipBlock": {"cidr": "10.0.0.0/8"}}])");
  ASSERT_TRUE(peers.ok()) << peers.status().ToString();
  EXPECT_EQ(peers->size(), 2u);
  EXPECT_EQ(NamespacePeers("ops"), json::parse(R"([{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "ops"}}}])"));
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"", "want a JSON list of NetworkPolicyPeers"},
      {"{}", "want a JSON list of NetworkPolicyPeers"},
      {"[1]", "[0]: want a NetworkPolicyPeer object"},
      {"[{}]", "[0]: want a NetworkPolicyPeer object"},
      {R"([{"ipBlock": {}}, {"ports": {}}])", "[1].ports: want podSelector, namespaceSelector or ipBlock"},
      {R"([{"podSelector": "app=x"}])", "[0].podSelector: want an object"},
      {std::string(100000, '['), "want a JSON list of NetworkPolicyPeers"},
  };
  for (const auto& [text, message] : bad) EXPECT_EQ(ParseNetworkPolicyPeers(text).status().message(), message) << text.substr(0, 40);
}

TEST(Builders, WorkerPodsMeetTheRestrictedProfile) {
  const json pod = BuildWorkerPod(Task1a(), 0, Gang{1, 0})["spec"];
  EXPECT_EQ(pod["automountServiceAccountToken"], false);
  EXPECT_EQ(pod["securityContext"]["runAsNonRoot"], true);
  EXPECT_GT(pod["securityContext"]["runAsUser"].get<int>(), 0);
  EXPECT_EQ(pod["securityContext"]["seccompProfile"]["type"], "RuntimeDefault");
  for (const json& container : pod["containers"]) {
    const json& security = container["securityContext"];
    EXPECT_EQ(security["allowPrivilegeEscalation"], false);
    EXPECT_EQ(security["readOnlyRootFilesystem"], true);
    EXPECT_EQ(security["capabilities"]["drop"], json::array({"ALL"}));
    EXPECT_FALSE(security.contains("privileged"));
  }
  for (const json& volume : pod["volumes"]) {
    EXPECT_TRUE(volume.contains("configMap") || volume.contains("emptyDir")) << volume.dump();
    if (volume.contains("emptyDir")) {
      EXPECT_TRUE(volume["emptyDir"].contains("sizeLimit")) << volume.dump();
    }
  }
}

// Unset resources still give Guaranteed QoS (requests equal limits), so a run's CPU is its own.
TEST(Builders, UnsetResourcesDefaultToGuaranteed) {
  Benchmark b = Task1a();
  b.spec.resources = {};
  const json resources = BuildWorkerPod(b, 0, Gang{1, 0})["spec"]["containers"][0]["resources"];
  EXPECT_EQ(resources["requests"], resources["limits"]);
  EXPECT_EQ(resources["requests"]["cpu"], kDefaultWorkerCpu);
  EXPECT_EQ(resources["requests"]["memory"], kDefaultWorkerMemory);
}

TEST(Builders, GpuWorkersAskForDevicesInLimits) {
  Benchmark b = Task1a();
  b.spec.device = "cuda";
  b.spec.backend = "nccl";
  b.spec.resources.gpu = 2;
  const json resources = BuildWorkerPod(b, 0, Gang{1, 0})["spec"]["containers"][0]["resources"];
  EXPECT_EQ(resources["limits"]["nvidia.com/gpu"], "2");
  EXPECT_FALSE(resources["requests"].contains("nvidia.com/gpu"));
  EXPECT_EQ(resources["requests"]["cpu"], "3");
}

TEST(Builders, Event) {
  ExpectGolden(BuildEvent(Task1a(), "Warning", "Restarting", "rank 1 failed", "2026-11-22T06:00:00Z"), "event.json");
}

// Events hold at most 1024 bytes of message; the cut must fall between characters, or the
// Event cannot be encoded at all (the audit's crash).
TEST(Builders, ALongEventMessageIsCutBetweenCharacters) {
  std::string message = "x";
  for (int i = 0; i < 600; ++i) message += "\u00e9";
  const nlohmann::json event = BuildEvent(Task1a(), "Warning", "Invalid", message, "2026-11-22T06:00:00Z");
  const std::string sent = event["message"];
  EXPECT_EQ(sent.size(), 1023u);
  EXPECT_EQ(sent, message.substr(0, 1023));
  EXPECT_NO_THROW(event.dump());
}

}  // namespace
}  // namespace ergobench::controller

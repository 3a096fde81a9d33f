// The agent on a fake sysfs (a RAPL package counter): its report and its Prometheus counters
// carry the counter's energy since the agent started, and of the node's workload pods only
// those outside the asking Benchmark, by opaque names.
#include "agent/node_energy_agent.h"

#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

namespace ergobench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class NodeEnergyAgentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / ("agent_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(Zone());
    std::ofstream(Zone() / "name") << "package-0\n";
    std::ofstream(Zone() / "max_energy_range_uj") << "262143328850\n";
    SetCounter(5'000'000);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path Zone() const { return root_ / "sys/class/powercap/intel-rapl:0"; }
  void SetCounter(uint64_t uj) { std::ofstream(Zone() / "energy_uj") << uj << "\n"; }
  std::unique_ptr<EnergySampler> Sampler() const {
    return std::make_unique<EnergySampler>(DiscoverEnergyMeters(root_.string(), "/nonexistent/libnvidia-ml.so.1"));
  }

  fs::path root_;
};

json Pod(const std::string& ns, const std::string& name, const std::string& phase = "Running") {
  return {{"metadata", {{"namespace", ns}, {"name", name}, {"uid", "uid-" + name}}}, {"status", {{"phase", phase}}}};
}

TEST(WorkloadPodTest, DaemonSetsStaticPodsAndEndedPodsAreNotTheNodesWorkload) {
  json worker = Pod("bench", "task1a-worker-0");
  worker["metadata"]["labels"] = {{"ergobench.io/benchmark", "task1a"}};
  EXPECT_EQ(WorkloadPod(worker), (NodePod{"bench", "task1a-worker-0", "uid-task1a-worker-0", "task1a"}));
  EXPECT_EQ(WorkloadPod(Pod("web", "shop-0", "Pending")), (NodePod{"web", "shop-0", "uid-shop-0", ""}));
  json daemon = Pod("kube-system", "kube-proxy-x");
  daemon["metadata"]["ownerReferences"] = {{{"kind", "DaemonSet"}, {"name", "kube-proxy"}, {"controller", true}}};
  EXPECT_FALSE(WorkloadPod(daemon).has_value());
  json mirror = Pod("kube-system", "etcd-n1");
  mirror["metadata"]["annotations"] = {{"kubernetes.io/config.mirror", "abc"}};
  EXPECT_FALSE(WorkloadPod(mirror).has_value());
  EXPECT_FALSE(WorkloadPod(Pod("bench", "done", "Succeeded")).has_value());
  EXPECT_FALSE(WorkloadPod(Pod("bench", "crashed", "Failed")).has_value());
}

TEST_F(NodeEnergyAgentTest, ReportsItsChannelsAndTheWorkloadPods) {
  NodeEnergyAgent agent("node-1", Sampler(), std::chrono::milliseconds(10), "agent-key");
  ASSERT_TRUE(agent.measuring());
  agent.Start();
  agent.Stop();
  NodeEnergyReport report = agent.Report(std::nullopt, EnergyQuery{"bench", "task1a"});
  EXPECT_EQ(report.node, "node-1");
  EXPECT_EQ(report.interval_ms, 10);
  EXPECT_FALSE(report.pods_known);
  ASSERT_EQ(report.channels.size(), 1u);
  EXPECT_EQ(report.channels[0].device, "cpu0");
  EXPECT_EQ(report.channels[0].domain, "package");
  EXPECT_EQ(report.meters[0]["name"], "rapl");
  json daemon = Pod("kube-system", "kube-proxy-x");
  daemon["metadata"]["ownerReferences"] = {{{"kind", "DaemonSet"}, {"controller", true}}};
  json own = Pod("bench", "task1a-worker-1");
  own["metadata"]["labels"] = {{"ergobench.io/benchmark", "task1a"}};
  json namesake = Pod("other", "task1a-worker-0");  // the same Benchmark name, another namespace
  namesake["metadata"]["labels"] = {{"ergobench.io/benchmark", "task1a"}};
  namesake["metadata"]["uid"] = "uid-other";
  const std::vector<json> pods = {Pod("web", "shop"), daemon, own, namesake};
  report = agent.Report(pods, EnergyQuery{"bench", "task1a"});
  EXPECT_TRUE(report.pods_known);
  // HMAC-SHA256 under the agent's key, from OpenSSL's command line:
  //   printf uid-shop | openssl dgst -sha256 -hmac agent-key   (c89e7f5b90b49d56...), uid-other (27107f09...)
  EXPECT_EQ(report.other_pods, (std::vector<std::string>{"pod 27107f091b45d387", "pod c89e7f5b90b49d56"}));
  EXPECT_EQ(EncodeNodeEnergyReport(report).dump().find("shop"), std::string::npos) << "no pod's name";
  EXPECT_EQ(EncodeNodeEnergyReport(report).dump().find("web"), std::string::npos) << "no pod's namespace";

  // Without a question, nothing of the pods.
  report = agent.Report(pods, std::nullopt);
  EXPECT_FALSE(report.pods_known);
  EXPECT_TRUE(report.other_pods.empty());
}

// The agent serves its last sampling's joules, up to an interval old, and says how old and when
// on the node's monotonic clock: a rank places the reading when it was taken (AgentMeter).
TEST_F(NodeEnergyAgentTest, SaysHowOldItsReadingsAreAndWhenTheyWereTaken) {
  std::unique_ptr<EnergySampler> owned = Sampler();
  EnergySampler* sampler = owned.get();
  NodeEnergyAgent agent("node-1", std::move(owned), std::chrono::milliseconds(100), "agent-key");
  const auto t0 = EnergySampler::Clock::now();
  sampler->SampleAt(t0);
  const NodeEnergyReport report = agent.Report(std::nullopt, std::nullopt, t0 + std::chrono::milliseconds(70));
  EXPECT_EQ(report.sample_age_ms, 70);
  EXPECT_EQ(report.sample_monotonic_ns, std::chrono::nanoseconds(t0.time_since_epoch()).count());
  sampler->SampleAt(t0 + std::chrono::milliseconds(100));
  EXPECT_EQ(agent.Report(std::nullopt, std::nullopt, t0 + std::chrono::microseconds(100'900)).sample_age_ms, 0);
}

TEST(EnergyQueryTest, ABenchmarkIsNamedByItsNamespaceAndNameOrNotAtAll) {
  EXPECT_FALSE(ParseEnergyQuery("")->has_value());
  const auto query = ParseEnergyQuery("namespace=team-a&benchmark=fmnist-k2");
  ASSERT_TRUE(query.ok() && query->has_value()) << query.status().ToString();
  EXPECT_EQ((*query)->namespace_name, "team-a");
  EXPECT_EQ((*query)->benchmark, "fmnist-k2");
  EXPECT_EQ(ParseEnergyQuery("benchmark=b&namespace=n").value()->namespace_name, "n");
  for (const char* bad : {"namespace=a", "benchmark=b", "namespace=a&benchmark=b&namespace=c", "namespace=a&benchmark=",
                          "namespace=A&benchmark=b", "namespace=a%2Fb&benchmark=b", "x=1&namespace=a&benchmark=b",
                          "namespace=a&&benchmark=b", "&"}) {
    EXPECT_EQ(ParseEnergyQuery(bad).status().code(), StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_EQ(ParseEnergyQuery(std::string(100000, 'n')).status().code(), StatusCode::kInvalidArgument);
}

// 42.7 J since the start, served as 42: whole joules, to ranks and to Prometheus alike.
TEST_F(NodeEnergyAgentTest, ExportsTheNodesCounterForPrometheusInWholeJoules) {
  NodeEnergyAgent agent("node-1", Sampler(), std::chrono::milliseconds(10));
  agent.Start();
  SetCounter(5'000'000 + 42'700'000);
  for (int i = 0; i < 200 && agent.Report(std::nullopt, std::nullopt).channels[0].joules < 42.0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  agent.Stop();
  EXPECT_DOUBLE_EQ(agent.Report(std::nullopt, std::nullopt).channels[0].joules, 42.0);
  EXPECT_NE(agent.RenderMetrics().find(
                R"(ergobench_node_energy_joules_total{device="cpu0",domain="package",node="node-1"} 42)"),
            std::string::npos)
      << agent.RenderMetrics();
}

}  // namespace
}  // namespace ergobench

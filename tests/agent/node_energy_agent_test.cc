// The agent on a fake sysfs (a RAPL package counter): its report and its Prometheus counters
// carry the counter's energy since the agent started, and only the node's workload pods.
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
  return {{"metadata", {{"namespace", ns}, {"name", name}}}, {"status", {{"phase", phase}}}};
}

TEST(WorkloadPodTest, DaemonSetsStaticPodsAndEndedPodsAreNotTheNodesWorkload) {
  json worker = Pod("bench", "task1a-worker-0");
  worker["metadata"]["labels"] = {{"ergobench.io/benchmark", "task1a"}};
  EXPECT_EQ(WorkloadPod(worker), (NodePod{"bench", "task1a-worker-0", "task1a"}));
  EXPECT_EQ(WorkloadPod(Pod("web", "shop-0", "Pending")), (NodePod{"web", "shop-0", ""}));
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
  NodeEnergyAgent agent("node-1", Sampler(), std::chrono::milliseconds(10));
  ASSERT_TRUE(agent.measuring());
  agent.Start();
  agent.Stop();
  NodeEnergyReport report = agent.Report(std::nullopt);
  EXPECT_EQ(report.node, "node-1");
  EXPECT_EQ(report.interval_ms, 10);
  EXPECT_FALSE(report.pods_known);
  ASSERT_EQ(report.channels.size(), 1u);
  EXPECT_EQ(report.channels[0].device, "cpu0");
  EXPECT_EQ(report.channels[0].domain, "package");
  EXPECT_EQ(report.meters[0]["name"], "rapl");
  json daemon = Pod("kube-system", "kube-proxy-x");
  daemon["metadata"]["ownerReferences"] = {{{"kind", "DaemonSet"}, {"controller", true}}};
  report = agent.Report(std::vector<json>{Pod("web", "shop-0"), daemon});
  EXPECT_TRUE(report.pods_known);
  EXPECT_EQ(report.pods, (std::vector<NodePod>{{"web", "shop-0", ""}}));
}

TEST_F(NodeEnergyAgentTest, ExportsTheNodesCounterForPrometheus) {
  NodeEnergyAgent agent("node-1", Sampler(), std::chrono::milliseconds(10));
  agent.Start();
  SetCounter(5'000'000 + 42'000'000);
  for (int i = 0; i < 200 && agent.Report(std::nullopt).channels[0].joules < 42.0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  agent.Stop();
  EXPECT_DOUBLE_EQ(agent.Report(std::nullopt).channels[0].joules, 42.0);
  EXPECT_NE(agent.RenderMetrics().find(
                R"(ergobench_node_energy_joules_total{device="cpu0",domain="package",node="node-1"} 42)"),
            std::string::npos)
      << agent.RenderMetrics();
}

}  // namespace
}  // namespace ergobench

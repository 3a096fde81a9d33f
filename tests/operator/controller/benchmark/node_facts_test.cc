#include "operator/controller/benchmark/node_facts.h"

#include <gtest/gtest.h>

namespace ergobench::controller {
namespace {

using nlohmann::json;

json NodeWith(json labels, std::string provider_id = "", json allocatable = json::object()) {
  return {{"metadata", {{"name", "n"}, {"labels", labels}}},
          {"spec", {{"providerID", provider_id}}},
          {"status", {{"allocatable", allocatable}}}};
}

TEST(NodeFacts, AnEksSpotNode) {
  const NodeFacts f = NodeFactsOf(NodeWith(
      {{"node.kubernetes.io/instance-type", "g5.xlarge"}, {"topology.kubernetes.io/region", "us-east-1"},
       {"topology.kubernetes.io/zone", "us-east-1b"}, {"eks.amazonaws.com/capacityType", "SPOT"},
       {"k8s.amazonaws.com/accelerator", "nvidia-a10g"}},
      "aws:///us-east-1b/i-0123456789abcdef0",
      {{"cpu", "3920m"}, {"memory", "15896124Ki"}, {"nvidia.com/gpu", "1"}}));
  EXPECT_EQ(f.name, "n");
  EXPECT_EQ(f.provider, "aws");
  EXPECT_EQ(f.instance_type, "g5.xlarge");
  EXPECT_EQ(f.region, "us-east-1");
  EXPECT_EQ(f.zone, "us-east-1b");
  EXPECT_EQ(f.capacity_type, "spot");
  EXPECT_DOUBLE_EQ(f.cpus, 3.92);
  EXPECT_DOUBLE_EQ(f.memory_bytes, 15896124.0 * 1024);
  EXPECT_EQ(f.accelerators, 1);
  EXPECT_EQ(f.accelerator_model, "nvidia-a10g");
}

TEST(NodeFacts, CapacityTypesAsEachCloudLabelsThem) {
  EXPECT_EQ(NodeFactsOf(NodeWith({{"karpenter.sh/capacity-type", "on-demand"}})).capacity_type, "on-demand");
  EXPECT_EQ(NodeFactsOf(NodeWith({{"karpenter.sh/capacity-type", "spot"}})).capacity_type, "spot");
  EXPECT_EQ(NodeFactsOf(NodeWith({{"eks.amazonaws.com/capacityType", "ON_DEMAND"}})).capacity_type, "on-demand");
  EXPECT_EQ(NodeFactsOf(NodeWith({{"cloud.google.com/gke-spot", "true"}})).capacity_type, "spot");
  EXPECT_EQ(NodeFactsOf(NodeWith({{"cloud.google.com/gke-preemptible", "true"}})).capacity_type, "spot");
  EXPECT_EQ(NodeFactsOf(NodeWith({{"kubernetes.azure.com/scalesetpriority", "spot"}})).capacity_type, "spot");
  EXPECT_EQ(NodeFactsOf(NodeWith(json::object())).capacity_type, "") << "nothing said, nothing assumed";
}

TEST(NodeFacts, AGkeNodeWithBetaLabelsAndAnAttachedGpu) {
  const NodeFacts f = NodeFactsOf(NodeWith(
      {{"beta.kubernetes.io/instance-type", "n1-standard-8"}, {"failure-domain.beta.kubernetes.io/region", "us-central1"},
       {"failure-domain.beta.kubernetes.io/zone", "us-central1-a"}, {"cloud.google.com/gke-accelerator", "nvidia-tesla-t4"}},
      "gce://project/us-central1-a/gke-node", {{"nvidia.com/gpu", "2"}}));
  EXPECT_EQ(f.provider, "gcp");
  EXPECT_EQ(f.instance_type, "n1-standard-8");
  EXPECT_EQ(f.region, "us-central1");
  EXPECT_EQ(f.zone, "us-central1-a");
  EXPECT_EQ(f.accelerators, 2);
  EXPECT_EQ(f.accelerator_model, "nvidia-tesla-t4");
}

TEST(NodeFacts, ABareNodeHasOnlyItsNameAndResources) {
  const NodeFacts f = NodeFactsOf({{"metadata", {{"name", "kind-control-plane"}}}, {"status", {{"allocatable", {{"cpu", "2"}}}}}});
  EXPECT_EQ(f.name, "kind-control-plane");
  EXPECT_EQ(f.provider, "");
  EXPECT_EQ(f.instance_type, "");
  EXPECT_DOUBLE_EQ(f.cpus, 2);
}

}  // namespace
}  // namespace ergobench::controller

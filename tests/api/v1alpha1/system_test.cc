#include "api/v1alpha1/system.h"

#include <gtest/gtest.h>

namespace ergobench {
namespace {

NodeFacts Node(const std::string& name, const std::string& type, const std::string& zone, const std::string& capacity) {
  NodeFacts n;
  n.name = name;
  n.provider = "aws";
  n.instance_type = type;
  n.region = "us-east-1";
  n.zone = zone;
  n.capacity_type = capacity;
  n.cpus = 4;
  return n;
}

TEST(System, TheNodesOfTheRanksInRankOrder) {
  const SystemIdentity s = DescribeSystem({Node("b", "m5.xlarge", "us-east-1a", "spot"), Node("a", "m5.xlarge", "us-east-1b", "spot")},
                                          {{"cpuModel", "Intel(R) Xeon(R) Platinum 8259CL"}});
  EXPECT_EQ(s.nodes, (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(s.instance_type, "m5.xlarge");
  EXPECT_EQ(s.zone, "us-east-1a+us-east-1b");
  EXPECT_EQ(s.capacity_type, "spot");
  EXPECT_EQ(s.cpu_model, "Intel(R) Xeon(R) Platinum 8259CL");
  EXPECT_EQ(s.Name(), "aws m5.xlarge us-east-1");
}

TEST(System, ZoneAndCapacityTypeDoNotMakeAnotherSystemAnInstanceTypeDoes) {
  const SystemIdentity spot = DescribeSystem({Node("a", "m5.xlarge", "us-east-1a", "spot")}, {});
  const SystemIdentity on_demand = DescribeSystem({Node("b", "m5.xlarge", "us-east-1c", "on-demand")}, {});
  const SystemIdentity bigger = DescribeSystem({Node("c", "m5.2xlarge", "us-east-1a", "spot")}, {});
  const SystemIdentity mixed = DescribeSystem({Node("a", "m5.xlarge", "", ""), Node("c", "m5.2xlarge", "", "")}, {});
  EXPECT_EQ(spot.Key(), on_demand.Key());
  EXPECT_NE(spot.Key(), bigger.Key());
  EXPECT_EQ(mixed.instance_type, "m5.xlarge+m5.2xlarge");
  EXPECT_NE(mixed.Key(), spot.Key());
  EXPECT_NE(mixed.Key(), bigger.Key());
}

TEST(System, AHostWithoutAnInstanceTypeIsNamedByItsCpu) {
  NodeFacts host;
  host.name = "laptop";
  host.cpus = 8;
  const SystemIdentity s = DescribeSystem({host}, {{"cpuModel", "AMD Ryzen 7 5800U"}});
  EXPECT_EQ(s.Name(), "local: AMD Ryzen 7 5800U x8");
  NodeFacts other = host;
  other.cpus = 16;
  EXPECT_NE(s.Key(), DescribeSystem({other}, {{"cpuModel", "AMD Ryzen 7 5800U"}}).Key());
}

TEST(System, RoundTrips) {
  NodeFacts gpu = Node("g", "p4d.24xlarge", "us-east-1a", "on-demand");
  gpu.accelerators = 8;
  gpu.accelerator_model = "NVIDIA-A100-SXM4-40GB";
  const SystemIdentity s = DescribeSystem({gpu}, {{"cpuModel", "x"}});
  const nlohmann::json json = SystemIdentityFields().Encode(s);
  EXPECT_EQ(json["name"], "aws p4d.24xlarge us-east-1");
  EXPECT_EQ(json["accelerators"], 8);
  FieldErrors errors;
  EXPECT_EQ(SystemIdentityFields().Decode(&json, "system", &errors), s);
  EXPECT_TRUE(errors.empty()) << errors.ToString();
}

}  // namespace
}  // namespace ergobench

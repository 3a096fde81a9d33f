#include "api/node_energy.h"

#include <gtest/gtest.h>

namespace ergobench {
namespace {

TEST(NodeEnergyTest, RoundTrips) {
  NodeEnergyReport report;
  report.node = "node-1";
  report.interval_ms = 100;
  report.meters = nlohmann::json::parse(R"([{"name": "rapl", "available": true, "channels": ["cpu0/package"]}])");
  report.channels = {{"cpu0", "package", true, 8123.5}, {"cpu0", "core", false, 4000.25}};
  report.pods_known = true;
  report.pods = {{"bench", "task1a-worker-0", "task1a"}, {"web", "shop-0", ""}};
  const nlohmann::json encoded = EncodeNodeEnergyReport(report);
  EXPECT_EQ(encoded["channels"][0]["joules"], 8123.5);
  EXPECT_EQ(encoded["pods"][1]["namespace"], "web");
  auto decoded = DecodeNodeEnergyReport(encoded);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, report);
}

TEST(NodeEnergyTest, AWrongFieldIsNamed) {
  auto decoded = DecodeNodeEnergyReport(nlohmann::json::parse(R"({"node": "n", "channels": [{"joules": "many"}]})"));
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.status().message().find("channels[0].joules"), std::string::npos) << decoded.status().message();
  decoded = DecodeNodeEnergyReport(nlohmann::json::parse(R"({"pods": {}})"));
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.status().message().find("pods: must be a list"), std::string::npos) << decoded.status().message();
}

}  // namespace
}  // namespace ergobench

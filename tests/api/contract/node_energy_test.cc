#include "api/contract/node_energy.h"

#include <gtest/gtest.h>

namespace ergobench {
namespace {

TEST(NodeEnergyTest, RoundTrips) {
  NodeEnergyReport report;
  report.node = "node-1";
  report.interval_ms = 100;
  report.sample_age_ms = 42;
  report.sample_monotonic_ns = 1234567890123;
  report.meters = nlohmann::json::parse(R"([{"name": "rapl", "available": true, "channels": ["cpu0/package"]}])");
  report.channels = {{"cpu0", "package", true, 8123.5}, {"cpu0", "core", false, 4000.25}};
  report.pods_known = true;
  report.other_pods = {"pod 27107f091b45d387", "pod c89e7f5b90b49d56"};
  const nlohmann::json encoded = EncodeNodeEnergyReport(report);
  EXPECT_EQ(encoded["channels"][0]["joules"], 8123.5);
  EXPECT_EQ(encoded["otherPods"][1], "pod c89e7f5b90b49d56");
  EXPECT_EQ(encoded["sampleAgeMs"], 42);
  EXPECT_EQ(encoded["sampleMonotonicNs"], 1234567890123);
  auto decoded = DecodeNodeEnergyReport(encoded);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, report);
}

TEST(NodeEnergyTest, AWrongFieldIsNamed) {
  auto decoded = DecodeNodeEnergyReport(nlohmann::json::parse(R"({"node": "n", "channels": [{"joules": "many"}]})"));
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.status().message().find("channels[0].joules"), std::string::npos) << decoded.status().message();
  decoded = DecodeNodeEnergyReport(nlohmann::json::parse(R"({"otherPods": [1]})"));
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.status().message().find("otherPods"), std::string::npos) << decoded.status().message();
}

// An agent from before sampleAgeMs served its readings without their age: taken as fresh. An age
// below 0 is no age, and one over a day no agent's that still samples.
TEST(NodeEnergyTest, TheSamplesAgeIsZeroWhenUnsaidAndNeverNegative) {
  auto decoded = DecodeNodeEnergyReport(nlohmann::json::parse(R"({"node": "n", "intervalMs": 100})"));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->sample_age_ms, 0);
  decoded = DecodeNodeEnergyReport(nlohmann::json::parse(R"({"node": "n", "sampleAgeMs": -5})"));
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().message(), "node energy report: sampleAgeMs: want 0 to 86400000 milliseconds, got -5");
  decoded = DecodeNodeEnergyReport(nlohmann::json::parse(R"({"node": "n", "sampleAgeMs": 86400001})"));
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().message(), "node energy report: sampleAgeMs: want 0 to 86400000 milliseconds, got 86400001");
  decoded = DecodeNodeEnergyReport(nlohmann::json::parse(R"({"node": "n", "sampleAgeMs": 1.5})"));
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.status().message().find("sampleAgeMs"), std::string::npos) << decoded.status().message();
}

// When the readings were taken on the agent's monotonic clock: absent from an older agent (then
// nothing is assumed), never below 0.
TEST(NodeEnergyTest, TheSamplesMonotonicTimeIsOptionalAndNeverNegative) {
  auto decoded = DecodeNodeEnergyReport(nlohmann::json::parse(R"({"node": "n", "intervalMs": 100})"));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_FALSE(decoded->sample_monotonic_ns.has_value());
  EXPECT_FALSE(EncodeNodeEnergyReport(*decoded).contains("sampleMonotonicNs"));
  decoded = DecodeNodeEnergyReport(nlohmann::json::parse(R"({"node": "n", "sampleMonotonicNs": -1})"));
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().message(), "node energy report: sampleMonotonicNs: want 0 or more nanoseconds, got -1");
  decoded = DecodeNodeEnergyReport(nlohmann::json::parse(R"({"node": "n", "sampleMonotonicNs": "soon"})"));
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.status().message().find("sampleMonotonicNs"), std::string::npos) << decoded.status().message();
}

}  // namespace
}  // namespace ergobench

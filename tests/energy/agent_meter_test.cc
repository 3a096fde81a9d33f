// The agent's client against a real HTTP server (MetricsServer) that answers GET /energy as
// the agent does: the channels, their joules, and the opaque names of the node's other pods.
#include "energy/agent_meter.h"

#include <atomic>
#include <limits>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "api/contract/node_energy.h"
#include "base/metrics_server.h"
#include "energy/energy_sampler.h"

namespace ergobench {
namespace {

class AgentMeterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    report_.node = "node-1";
    report_.interval_ms = 100;
    report_.channels = {{"cpu0", "package", true, 1000.0}, {"cpu0", "core", false, 400.0}};
    report_.pods_known = true;
    auto server = MetricsServer::Start("127.0.0.1", 0, [] { return std::string(); }, nullptr, {},
                                       [this](const RouteRequest& request) -> std::optional<HttpReply> {
                                         if (request.path != "/energy") return std::nullopt;
                                         std::unique_lock<std::mutex> lock(mutex_);
                                         queries_.emplace_back(request.query);
                                         if (on_answer_) on_answer_(report_);
                                         HttpReply reply{200, "application/json", EncodeNodeEnergyReport(report_).dump()};
                                         const auto delay = answer_delay_;
                                         lock.unlock();
                                         std::this_thread::sleep_for(delay);  // the answer in transit
                                         return reply;
                                       });
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
  }
  AgentAddress Address() const { return {"127.0.0.1", server_->port()}; }
  void Update(const std::function<void(NodeEnergyReport&)>& change) {
    std::lock_guard<std::mutex> lock(mutex_);
    change(report_);
  }

  std::mutex mutex_;
  NodeEnergyReport report_;
  std::function<void(NodeEnergyReport&)> on_answer_;  // as the agent answers, before the delay
  std::chrono::milliseconds answer_delay_{0};
  std::vector<std::string> queries_;
  std::unique_ptr<MetricsServer> server_;
};

TEST_F(AgentMeterTest, TheNodesChannelsAreCountersOfItsJoules) {
  auto meter = OpenAgentMeter(Address(), "bench", "task1a");
  ASSERT_TRUE(meter->info().available) << meter->info().reason;
  EXPECT_EQ(meter->info().name, "agent");
  ASSERT_EQ(meter->info().channels.size(), 2u);
  EXPECT_EQ(meter->info().channels[1].domain, "core");
  EXPECT_FALSE(meter->info().channels[1].in_total);
  Update([](NodeEnergyReport& r) { r.channels[0].joules = 1250.0; });
  const std::vector<ChannelSample> samples = meter->Sample();
  EXPECT_EQ(samples[0].energy_joules, 1250.0);
  EXPECT_EQ(samples[1].energy_joules, 400.0);
}

// Its tests that judge a time run in the quiet phase (ctest label measure).
class AgentMeterMeasureTest : public AgentMeterTest {};

// The agent's readings were sampleAgeMs old when it answered, taken at sampleMonotonicNs on the
// node's clock, which is the rank's: the meter places them there, however long the answer then
// took to arrive (300 ms here, a rank descheduled on a busy node; counted as the readings' age,
// it put one end of a timed region that late).
TEST_F(AgentMeterMeasureTest, AReadingCountsWhenTheAgentTookItOnTheNodesClock) {
  auto meter = OpenAgentMeter(Address(), "bench", "task1a");
  EXPECT_EQ(meter->info().refresh, std::chrono::milliseconds(100));  // the agent's intervalMs
  std::chrono::steady_clock::time_point taken;
  Update([&](NodeEnergyReport&) {
    on_answer_ = [&](NodeEnergyReport& r) {
      taken = std::chrono::steady_clock::now() - std::chrono::milliseconds(80);
      r.sample_age_ms = 80;
      r.sample_monotonic_ns = std::chrono::nanoseconds(taken.time_since_epoch()).count();
    };
    answer_delay_ = std::chrono::milliseconds(300);
  });
  const auto asked = std::chrono::steady_clock::now();
  const std::vector<ChannelSample> samples = meter->Sample();
  const auto placed = asked - samples[0].taken_before;
  EXPECT_LT(std::chrono::abs(placed - taken), std::chrono::milliseconds(2))
      << "placed " << std::chrono::duration<double, std::milli>(placed - taken).count() << " ms from when taken";
  EXPECT_EQ(samples[1].taken_before, samples[0].taken_before);  // one reading of the node
}

// On another clock (a pod in a VM of its own, or an older agent that does not say), the reading
// is placed by its age from the middle of the round trip: half the round trip off at most.
TEST_F(AgentMeterMeasureTest, OnAnotherClockAReadingIsAsOldAsTheAgentSaysFromTheRoundTripsMiddle) {
  auto meter = OpenAgentMeter(Address(), "bench", "task1a");
  std::chrono::steady_clock::time_point taken;
  Update([&](NodeEnergyReport&) {
    on_answer_ = [&](NodeEnergyReport& r) {
      taken = std::chrono::steady_clock::now() - std::chrono::milliseconds(80);
      r.sample_age_ms = 80;
      r.sample_monotonic_ns = 12345;  // another kernel's, up 12 microseconds
    };
    answer_delay_ = std::chrono::milliseconds(100);
  });
  const auto asked = std::chrono::steady_clock::now();
  const std::vector<ChannelSample> samples = meter->Sample();
  const auto round_trip = std::chrono::steady_clock::now() - asked;
  const auto placed = asked - samples[0].taken_before;
  EXPECT_LE(std::chrono::abs(placed - taken), round_trip / 2 + std::chrono::milliseconds(1));
}

// Whatever an agent sends that decodes (the decoder bounds the age to a day) places a reading
// without overflow: the largest clock is another's, and the reading is a day old.
TEST_F(AgentMeterTest, TheLargestClockAndAgeAnAgentMaySendPlaceAReadingADayBack) {
  auto meter = OpenAgentMeter(Address(), "bench", "task1a");
  Update([](NodeEnergyReport& r) {
    r.sample_age_ms = kMaxSampleAgeMs;
    r.sample_monotonic_ns = std::numeric_limits<int64_t>::max();
  });
  const std::chrono::nanoseconds taken_before = meter->Sample()[0].taken_before;
  EXPECT_GT(taken_before, std::chrono::hours(24) - std::chrono::seconds(1));
  EXPECT_LE(taken_before, std::chrono::hours(24));
}

// The sampler turns the agent's counters into the rank's energy, as it does a RAPL counter's.
TEST_F(AgentMeterTest, TheEnergyBetweenTwoReadingsIsTheirDifference) {
  std::vector<std::unique_ptr<EnergyMeter>> meters;
  meters.push_back(OpenAgentMeter(Address(), "bench", "task1a"));
  EnergySampler sampler(std::move(meters));
  const auto t0 = EnergySampler::Clock::time_point{};
  sampler.SampleAt(t0);
  Update([](NodeEnergyReport& r) { r.channels[0].joules = 1300.0; });
  sampler.SampleAt(t0 + std::chrono::seconds(3));
  EXPECT_DOUBLE_EQ(*sampler.TotalJoules(), 300.0);  // core is inside package
}

// The rank asks about its own Benchmark; the agent answers with the other pods' opaque names,
// and every one seen while the meter sampled is kept.
TEST_F(AgentMeterTest, OtherPodsSeenOnTheNodeAreKeptByTheirOpaqueNames) {
  auto meter = OpenAgentMeter(Address(), "bench", "task1a");
  EXPECT_EQ(meter->OthersOnNode(), std::vector<std::string>{});  // the node is the gang's alone
  Update([](NodeEnergyReport& r) { r.other_pods = {"pod 27107f091b45d387", "pod c89e7f5b90b49d56"}; });
  meter->Sample();
  Update([](NodeEnergyReport& r) { r.other_pods.clear(); });  // they ended; they still ran there
  meter->Sample();
  EXPECT_EQ(meter->OthersOnNode(), (std::vector<std::string>{"pod 27107f091b45d387", "pod c89e7f5b90b49d56"}));
  std::lock_guard<std::mutex> lock(mutex_);
  ASSERT_FALSE(queries_.empty());
  for (const std::string& query : queries_) EXPECT_EQ(query, "namespace=bench&benchmark=task1a");
}

TEST_F(AgentMeterTest, PodsNotYetListedLeaveTheSharingUnknown) {
  Update([](NodeEnergyReport& r) { r.pods_known = false; });
  auto meter = OpenAgentMeter(Address(), "bench", "task1a");
  EXPECT_TRUE(meter->info().available);
  EXPECT_FALSE(meter->OthersOnNode().has_value());
}

TEST_F(AgentMeterTest, AnAgentWithoutMetersOrOutOfReachIsUnavailableWithTheReason) {
  Update([](NodeEnergyReport& r) { r.channels.clear(); });
  auto meter = OpenAgentMeter(Address(), "bench", "task1a");
  EXPECT_FALSE(meter->info().available);
  EXPECT_EQ(meter->info().reason, "the node energy agent on node-1 has no meter that reads");
  const int port = server_->port();
  server_.reset();
  meter = OpenAgentMeter({"127.0.0.1", port}, "bench", "task1a");
  EXPECT_FALSE(meter->info().available);
  EXPECT_NE(meter->info().reason.find("node energy agent at 127.0.0.1:" + std::to_string(port)), std::string::npos)
      << meter->info().reason;
}

TEST(AgentAddressTest, ParsesHostAndPortAndNamesWhatIsWrong) {
  auto address = ParseAgentAddress("10.0.0.5:9810");
  ASSERT_TRUE(address.ok());
  EXPECT_EQ(address->host, "10.0.0.5");
  EXPECT_EQ(address->port, 9810);
  EXPECT_NE(ParseAgentAddress("10.0.0.5").status().message().find("want HOST:PORT"), std::string::npos);
  EXPECT_NE(ParseAgentAddress("10.0.0.5:99999").status().message().find("from 1 to 65535"), std::string::npos);
  EXPECT_FALSE(ParseAgentAddress("10.0.0.5:$(ERGOBENCH_NODE_PORT)").ok());  // an unexpanded variable
}

}  // namespace
}  // namespace ergobench

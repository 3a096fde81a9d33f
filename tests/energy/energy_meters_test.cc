#include <grp.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "energy/energy_meter.h"
#include "energy/energy_sampler.h"
#include "tests/testing/test_paths.h"

namespace ergobench {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

class FakeSysfs : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("ergobench-sysfs-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void Write(const std::string& path, const std::string& text) {
    fs::create_directories((root_ / path).parent_path());
    std::ofstream(root_ / path) << text << "\n";
  }
  void Zone(const std::string& dir, const std::string& name, uint64_t uj, uint64_t max = 262143328850) {
    Write("sys/class/powercap/" + dir + "/name", name);
    Write("sys/class/powercap/" + dir + "/energy_uj", std::to_string(uj));
    Write("sys/class/powercap/" + dir + "/max_energy_range_uj", std::to_string(max));
  }
  std::string Powercap() const { return (root_ / "sys/class/powercap").string(); }
  fs::path root_;
};

// Readings at known times (a counter's Update takes when it was read): seconds from a start.
std::chrono::steady_clock::time_point At(double seconds) {
  return std::chrono::steady_clock::time_point{} +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
}

TEST(CounterUnwrapper, UndoesWrapAround) {
  CounterUnwrapper counter(1000);
  EXPECT_EQ(counter.Update(900, At(0)), 0);
  EXPECT_EQ(counter.Update(990, At(0.1)), 90);
  EXPECT_EQ(counter.Update(40, At(0.2)), 140);  // wrapped: 10 to the top, then 40
  EXPECT_EQ(counter.Update(40, At(0.3)), 140);
}

// A counter that restarts from zero mid-range (a driver reload, a reset) is not a wrap: taking
// it for one added the whole rest of the range, 950 J here, to a few joules of work.
TEST(CounterUnwrapper, AResetIsNotAWrap) {
  CounterUnwrapper counter(1000);
  EXPECT_EQ(counter.Update(100, At(0)), 0);
  EXPECT_EQ(counter.Update(400, At(0.1)), 300);
  EXPECT_EQ(counter.Update(50, At(0.2)), 350) << "reset: only what it counted since";
  EXPECT_EQ(counter.Update(60, At(0.3)), 360);
}

// A reading late by more than half the counter's wrap time (a sampler starved on a busy node,
// against a counter that wraps in 0.5 s) stepped back by more than half the range: taken for a
// reset, it lost the rest of the range (34 J of a node's 676 J in one CI run). At the rate of
// the interval before, 1,000 a second here, 0.7 s late is 700 counted, a wrap.
TEST(CounterUnwrapper, AReadingLateByMoreThanHalfTheWrapTimeStillWraps) {
  CounterUnwrapper counter(1000);
  EXPECT_EQ(counter.Update(500, At(0)), 0);
  EXPECT_EQ(counter.Update(600, At(0.1)), 100);
  EXPECT_EQ(counter.Update(300, At(0.8)), 800) << "400 to the top, then 300";
  EXPECT_EQ(counter.Update(400, At(0.9)), 900);
}

// A counter that stops being readable mid-run must not leave its last value standing as the
// run's energy: the total is absent, and the meter's description says why.
TEST_F(FakeSysfs, ACounterUnreadableAtTheEndMakesTheEnergyAbsent) {
  Zone("intel-rapl:0", "package-0", 1000000);
  std::vector<std::unique_ptr<EnergyMeter>> meters;
  meters.push_back(OpenRaplMeter(Powercap()));
  EnergySampler sampler(std::move(meters));
  const auto t0 = EnergySampler::Clock::time_point{};
  sampler.SampleAt(t0);
  Zone("intel-rapl:0", "package-0", 3000000);
  sampler.SampleAt(t0 + milliseconds(100));
  EXPECT_DOUBLE_EQ(*sampler.TotalJoules(), 2.0);
  fs::remove(root_ / "sys/class/powercap/intel-rapl:0/energy_uj");
  sampler.SampleAt(t0 + milliseconds(200));
  EXPECT_FALSE(sampler.TotalJoules()) << "not the 2 J read before the counter went away";
  EXPECT_FALSE(sampler.JoulesBetween(t0, t0 + milliseconds(100)));
  const nlohmann::json described = sampler.Describe();
  EXPECT_NE(described[0].value("reason", "").find("cpu0/package could not be read"), std::string::npos)
      << described.dump();
  // A read that fails and then recovers loses nothing: the counter kept counting.
  Zone("intel-rapl:0", "package-0", 5000000);
  sampler.SampleAt(t0 + milliseconds(300));
  EXPECT_DOUBLE_EQ(*sampler.TotalJoules(), 4.0);
}

TEST_F(FakeSysfs, RaplZonesBecomeChannels) {
  Zone("intel-rapl:0", "package-0", 1000000);
  Zone("intel-rapl:0:0", "core", 500000);
  Zone("intel-rapl:0:1", "dram", 200000);
  Zone("intel-rapl:1", "psys", 9000000);
  auto meter = OpenRaplMeter(Powercap());
  ASSERT_TRUE(meter->info().available) << meter->info().reason;
  const auto& channels = meter->info().channels;
  ASSERT_EQ(channels.size(), 4u);
  EXPECT_EQ(channels[0].device + "/" + channels[0].domain, "cpu0/package");
  EXPECT_EQ(channels[1].device + "/" + channels[1].domain, "cpu0/core");
  EXPECT_FALSE(channels[1].in_total);  // inside package
  EXPECT_TRUE(channels[2].in_total);   // DRAM is metered apart
  EXPECT_EQ(channels[3].device + "/" + channels[3].domain, "platform/psys");
  EXPECT_FALSE(channels[3].in_total);

  Zone("intel-rapl:0", "package-0", 3500000);
  Zone("intel-rapl:0:1", "dram", 700000);
  const auto samples = meter->Sample();
  EXPECT_DOUBLE_EQ(*samples[0].energy_joules, 2.5);
  EXPECT_DOUBLE_EQ(*samples[2].energy_joules, 0.5);
}

TEST_F(FakeSysfs, RaplWrapAroundThroughTheSampler) {
  Zone("intel-rapl:0", "package-0", 999000000, 1000000000);  // 1 s before the wrap at 1000 J
  std::vector<std::unique_ptr<EnergyMeter>> meters;
  meters.push_back(OpenRaplMeter(Powercap()));
  EnergySampler sampler(std::move(meters));
  const auto t0 = EnergySampler::Clock::time_point{};
  sampler.SampleAt(t0);
  Zone("intel-rapl:0", "package-0", 4000000, 1000000000);  // wrapped: 1 J + 4 J
  sampler.SampleAt(t0 + milliseconds(100));
  EXPECT_DOUBLE_EQ(*sampler.TotalJoules(), 5.0);
  EXPECT_DOUBLE_EQ(*sampler.Channels()[0].watts, 50.0);
  EXPECT_TRUE(sampler.Channels()[0].from_counter);
}

// The samples at run_stop and at Stop come milliseconds after a periodic one, before a counter
// that updates every few milliseconds (RAPL; the tests' fixture) has moved: power from such a
// gap is noise (0 W here) and would stay exported after the run. Power keeps its last
// estimate until a gap long enough; the energy counts every sample.
TEST_F(FakeSysfs, PowerIsNotEstimatedOverAFewMilliseconds) {
  Zone("intel-rapl:0", "package-0", 0);
  std::vector<std::unique_ptr<EnergyMeter>> meters;
  meters.push_back(OpenRaplMeter(Powercap()));
  EnergySampler sampler(std::move(meters));
  const auto t0 = EnergySampler::Clock::time_point{};
  sampler.SampleAt(t0);
  Zone("intel-rapl:0", "package-0", 5000000);  // 5 J in 100 ms: 50 W
  sampler.SampleAt(t0 + milliseconds(100));
  sampler.SampleAt(t0 + milliseconds(102));  // the counter has not moved yet
  EXPECT_DOUBLE_EQ(*sampler.Channels()[0].watts, 50.0);
  Zone("intel-rapl:0", "package-0", 5100000);  // 0.1 J in 2 ms
  sampler.SampleAt(t0 + milliseconds(104));
  EXPECT_DOUBLE_EQ(*sampler.TotalJoules(), 5.1);
  EXPECT_DOUBLE_EQ(*sampler.Channels()[0].watts, 50.0);
  Zone("intel-rapl:0", "package-0", 10000000);  // 4.9 J more by 200 ms: 5 J over the last 100 ms
  sampler.SampleAt(t0 + milliseconds(200));
  EXPECT_DOUBLE_EQ(*sampler.Channels()[0].watts, 50.0);
  Zone("intel-rapl:0", "package-0", 12000000);  // 2 J in the next 100 ms: 20 W
  sampler.SampleAt(t0 + milliseconds(300));
  EXPECT_DOUBLE_EQ(*sampler.Channels()[0].watts, 20.0);
}

// As root every file is readable, so the check runs in a child that is not root, as a rank
// on a real node is not: a forked child drops to nobody (65534) when the test runs as root.
// The child's exit code says whether the meter was unavailable; its stderr holds the reason.
void CheckUnreadableAsAnUnprivilegedUser(const std::string& powercap) {
  if (geteuid() == 0 && (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0)) {
    std::fprintf(stderr, "cannot drop to nobody: %s\n", std::strerror(errno));
    std::_Exit(2);
  }
  auto meter = OpenRaplMeter(powercap);
  std::fprintf(stderr, "%s\n", meter->info().reason.c_str());
  std::_Exit(meter->info().available ? 1 : 0);
}

TEST_F(FakeSysfs, UnreadableCountersAreUnavailableWithTheReason) {
  Zone("intel-rapl:0", "package-0", 1000);
  chmod((root_ / "sys/class/powercap/intel-rapl:0/energy_uj").c_str(), 0);
  EXPECT_EXIT(CheckUnreadableAsAnUnprivilegedUser(Powercap()), ::testing::ExitedWithCode(0),
              "root-only since Linux 5.10");
}

TEST_F(FakeSysfs, MissingZonesAndMissingFilesAreNamed) {
  EXPECT_NE(OpenRaplMeter(Powercap())->info().reason.find("no RAPL zones"), std::string::npos);
  Write("sys/class/powercap/intel-rapl:0/name", "package-0");  // no energy_uj
  auto meter = OpenRaplMeter(Powercap());
  EXPECT_FALSE(meter->info().available);
  EXPECT_NE(meter->info().reason.find("intel-rapl:0/energy_uj"), std::string::npos) << meter->info().reason;
  // Nothing measured is no energy, not zero.
  std::vector<std::unique_ptr<EnergyMeter>> meters;
  meters.push_back(std::move(meter));
  EnergySampler sampler(std::move(meters));
  EXPECT_FALSE(sampler.measuring());
  EXPECT_EQ(sampler.TotalJoules(), std::nullopt);
}

TEST_F(FakeSysfs, HwmonAmdgpuAndGraceHopper) {
  Write("sys/class/hwmon/hwmon0/name", "k10temp");
  Write("sys/class/hwmon/hwmon1/name", "amdgpu");
  Write("sys/class/hwmon/hwmon1/power1_average", "150000000");  // 150 W, no counter
  Write("sys/class/hwmon/hwmon2/name", "amdgpu");
  Write("sys/class/hwmon/hwmon2/energy1_input", "1000000");
  Write("sys/class/hwmon/hwmon2/power1_average", "300000000");
  Write("sys/class/hwmon/hwmon10/name", "grace");
  Write("sys/class/hwmon/hwmon10/power1_oem_info", "Module Power Socket 0");
  Write("sys/class/hwmon/hwmon10/power1_average", "400000000");
  Write("sys/class/hwmon/hwmon11/name", "grace");
  Write("sys/class/hwmon/hwmon11/power1_oem_info", "CPU Power Socket 0");
  Write("sys/class/hwmon/hwmon11/power1_average", "100000000");
  auto meters = OpenHwmonMeters((root_ / "sys/class/hwmon").string());
  ASSERT_EQ(meters.size(), 2u);
  const MeterInfo& amd = meters[0]->info();
  ASSERT_TRUE(amd.available);
  ASSERT_EQ(amd.channels.size(), 2u);
  EXPECT_EQ(amd.channels[1].device, "gpu1");
  const MeterInfo& grace = meters[1]->info();
  ASSERT_TRUE(grace.available);
  EXPECT_EQ(grace.channels[0].domain, "module-power-socket-0");
  EXPECT_TRUE(grace.channels[0].in_total);
  EXPECT_FALSE(grace.channels[1].in_total);  // inside the module

  EnergySampler sampler(std::move(meters));
  const auto t0 = EnergySampler::Clock::time_point{};
  sampler.SampleAt(t0);
  Write("sys/class/hwmon/hwmon2/energy1_input", "61000000");  // +60 J
  sampler.SampleAt(t0 + milliseconds(1000));
  const auto channels = sampler.Channels();
  EXPECT_DOUBLE_EQ(channels[0].joules, 150.0);  // integrated power
  EXPECT_FALSE(channels[0].from_counter);
  EXPECT_DOUBLE_EQ(channels[1].joules, 60.0);   // the counter wins over power
  EXPECT_DOUBLE_EQ(channels[2].joules, 400.0);
  EXPECT_DOUBLE_EQ(*sampler.TotalJoules(), 150.0 + 60.0 + 400.0);  // grace CPU is inside the module
}

TEST(Nvml, AFakeLibraryWithCounterAndPowerOnlyGpus) {
  auto meter = OpenNvmlMeter(testing::kFakeNvmlPath);
  ASSERT_TRUE(meter->info().available) << meter->info().reason;
  ASSERT_EQ(meter->info().channels.size(), 2u);
  EXPECT_EQ(meter->info().channels[1].device, "gpu1");
  std::vector<std::unique_ptr<EnergyMeter>> meters;
  meters.push_back(std::move(meter));
  EnergySampler sampler(std::move(meters));
  const auto t0 = EnergySampler::Clock::time_point{};
  for (int i = 0; i <= 4; ++i) sampler.SampleAt(t0 + milliseconds(250 * i));
  const auto channels = sampler.Channels();
  EXPECT_DOUBLE_EQ(channels[0].joules, 1000.0);  // four counter steps of 250 J
  EXPECT_DOUBLE_EQ(*channels[0].watts, 1000.0);
  EXPECT_NEAR(channels[1].joules, 100.5, 1e-9);   // 100.5 W for 1 s, integrated
  // The series answers for any span: half the time, half the energy here.
  EXPECT_NEAR(*sampler.JoulesBetween(t0 + milliseconds(250), t0 + milliseconds(750)), 550.25, 1e-9);
  EXPECT_EQ(sampler.JoulesBetween(t0, t0 + milliseconds(5000)), std::nullopt);
}

TEST(Nvml, NoLibraryOrNoInitIsUnavailable) {
  EXPECT_NE(OpenNvmlMeter("/nonexistent/libnvidia-ml.so.1")->info().reason.find("not loadable"), std::string::npos);
  setenv("FAKE_NVML_INIT_FAILS", "1", 1);
  auto meter = OpenNvmlMeter(testing::kFakeNvmlPath);
  unsetenv("FAKE_NVML_INIT_FAILS");
  EXPECT_FALSE(meter->info().available);
  EXPECT_NE(meter->info().reason.find("nvmlInit failed"), std::string::npos);
}

// A package counter at a constant power whose readings, like the node energy agent's, were
// taken some time before they are asked for, and which says how long.
class LaggingCounter final : public EnergyMeter {
 public:
  using Clock = EnergySampler::Clock;
  LaggingCounter(double watts, Clock::time_point origin) : watts_(watts), origin_(origin) {
    info_ = {"agent", true, "", {{"cpu0", "package", true}}, milliseconds(50)};
  }
  const MeterInfo& info() const override { return info_; }
  // The next Sample() is asked at `asked` and serves the counter as it was `lag` before.
  void Ask(Clock::time_point asked, std::chrono::nanoseconds lag) { asked_ = asked, lag_ = lag; }
  std::vector<ChannelSample> Sample() override {
    const double seconds = std::chrono::duration<double>(asked_ - lag_ - origin_).count();
    return {{watts_ * seconds, std::nullopt, lag_}};
  }

 private:
  MeterInfo info_;
  double watts_;
  Clock::time_point origin_, asked_;
  std::chrono::nanoseconds lag_{0};
};

// A reading is placed when it was taken, not when it was asked for: the agent's counter read 80
// ms old at the run's end would otherwise cut 8 J off a 100 W second. A reading served again (the
// agent had not sampled since) adds nothing.
TEST(EnergySampler, AReadingCountsWhenItWasTakenNotWhenItWasAsked) {
  const auto t0 = EnergySampler::Clock::time_point{};
  auto owned = std::make_unique<LaggingCounter>(100.0, t0);
  LaggingCounter* meter = owned.get();
  std::vector<std::unique_ptr<EnergyMeter>> meters;
  meters.push_back(std::move(owned));
  EnergySampler sampler(std::move(meters));
  const auto sample = [&](milliseconds at, milliseconds lag) {
    meter->Ask(t0 + at, lag);
    sampler.SampleAt(t0 + at);
  };
  sample(milliseconds(0), milliseconds(0));
  sample(milliseconds(1000), milliseconds(80));  // taken at 920 ms: 92 J
  sample(milliseconds(1050), milliseconds(130));  // the same reading, served again
  sample(milliseconds(2000), milliseconds(0));
  EXPECT_DOUBLE_EQ(*sampler.JoulesBetween(t0, t0 + milliseconds(1000)), 100.0);
  EXPECT_DOUBLE_EQ(*sampler.JoulesBetween(t0 + milliseconds(1000), t0 + milliseconds(2000)), 100.0);
}

// Stop takes readings until one was taken after it was called, so that a run's last mark lies
// within the samples: from a meter whose readings lag, the one at the mark was taken before it.
TEST(EnergySamplerMeasureTest, StopWaitsForAReadingTakenAfterIt) {
  using Clock = EnergySampler::Clock;
  // Real time: the meter refreshes every 50 ms and serves its last refresh's counter.
  class Refreshing final : public EnergyMeter {
   public:
    explicit Refreshing(Clock::time_point origin) : origin_(origin) {
      info_ = {"agent", true, "", {{"cpu0", "package", true}}, milliseconds(50)};
    }
    const MeterInfo& info() const override { return info_; }
    std::vector<ChannelSample> Sample() override {
      const auto now = Clock::now();
      const auto refreshed = origin_ + (now - origin_) / milliseconds(50) * milliseconds(50);
      return {{100.0 * std::chrono::duration<double>(refreshed - origin_).count(), std::nullopt, now - refreshed}};
    }

   private:
    MeterInfo info_;
    Clock::time_point origin_;
  };
  std::vector<std::unique_ptr<EnergyMeter>> meters;
  meters.push_back(std::make_unique<Refreshing>(Clock::now()));
  EnergySampler sampler(std::move(meters));
  sampler.Start(std::chrono::seconds(10), nullptr);  // no periodic sample: Start's and Stop's
  std::this_thread::sleep_for(milliseconds(70));
  const auto from = Clock::now();
  sampler.SampleAt(from);
  std::this_thread::sleep_for(milliseconds(130));
  const auto to = Clock::now();
  sampler.SampleAt(to);
  sampler.Stop();
  const auto joules = sampler.JoulesBetween(from, to);
  ASSERT_TRUE(joules.has_value()) << "the last mark is past the samples";
  // 100 W: exact, but for the microseconds between the clock's reads and the meter's.
  EXPECT_NEAR(*joules, 100.0 * std::chrono::duration<double>(to - from).count(), 1e-3);
}

TEST(EnergySampler, DescribesEveryMeter) {
  auto meters = DiscoverEnergyMeters("/nonexistent-root", "/nonexistent/libnvidia-ml.so.1");
  EnergySampler sampler(std::move(meters));
  const auto described = sampler.Describe();
  ASSERT_EQ(described.size(), 4u);
  EXPECT_EQ(described[0]["name"], "rapl");
  EXPECT_FALSE(described[0]["available"]);
  EXPECT_EQ(described[1]["name"], "nvml");
}

}  // namespace
}  // namespace ergobench

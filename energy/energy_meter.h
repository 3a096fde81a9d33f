// Energy meters: one interface over the hardware's energy counters and power sensors.
// Each meter is discovered at start; one that cannot read (no device, a root-only counter)
// says why, and is listed as unavailable in the result's environment, never read as zero.
//
//   RaplMeter   CPU packages, cores, uncore, DRAM, platform (powercap sysfs; Intel and AMD)
//   NvmlMeter   NVIDIA GPUs (libnvidia-ml.so.1 loaded at run time)
//   HwmonMeter  AMD GPUs (amdgpu) and NVIDIA Grace-Hopper modules (hwmon sysfs)
//   AgentMeter  all of these on a cluster node, read by the node energy agent (agent_meter.h)
//
// A meter reports cumulative energy where the hardware counts it, else power, which the
// sampler (energy_sampler.h) integrates over time.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ergobench {

struct EnergyChannel {
  std::string device;  // "cpu0", "gpu1", "platform", "module0"
  std::string domain;  // "package", "core", "uncore", "dram", "psys", "gpu", "module"
  // Whether the channel adds to the rank's total: RAPL's core and uncore lie inside
  // package, and psys contains the packages, so they are shown but not summed.
  bool in_total = true;
};

struct ChannelSample {
  std::optional<double> energy_joules;  // cumulative, wrap-around undone, from an arbitrary origin
  std::optional<double> power_watts;    // a power reading, where the device gives one
  // How long before Sample() was called the reading was taken (below 0: after): 0 for a meter
  // that reads the hardware when asked; the node energy agent serves its last sampling's
  // readings, up to its interval old, and says when it took them.
  std::chrono::nanoseconds taken_before{0};
};

struct MeterInfo {
  std::string name;  // rapl | nvml | amdgpu | grace
  bool available = false;
  std::string reason;  // why not, when unavailable
  std::vector<EnergyChannel> channels;
  // For a meter whose readings are taken_before the asking (the agent): how often it takes new
  // ones. 0: it reads when asked.
  std::chrono::milliseconds refresh{0};
};

class EnergyMeter {
 public:
  virtual ~EnergyMeter() = default;
  virtual const MeterInfo& info() const = 0;
  // One sample per channel, in channels() order. A failed read leaves both fields empty.
  virtual std::vector<ChannelSample> Sample() = 0;
  // For a meter of the whole node (the node energy agent): the other pods seen on the node
  // while it sampled ("namespace/name"). Nothing where the meter cannot tell.
  virtual std::optional<std::vector<std::string>> OthersOnNode() const { return std::nullopt; }
};

// Undoes the wrap-around of a counter that counts up to `max_range` and restarts at 0. A step
// back is a wrap or a reset (the counter started over): the one nearer to what the counter's
// recent rate predicts for the time since; before a rate is known, a step back of more than
// half the range is a reset.
class CounterUnwrapper {
 public:
  explicit CounterUnwrapper(double max_range) : max_range_(max_range) {}
  // The total since the first reading; `at`: when `raw` was read.
  double Update(double raw, std::chrono::steady_clock::time_point at);

 private:
  double max_range_;
  static constexpr std::chrono::milliseconds kRateWindow{50};
  std::optional<std::pair<std::chrono::steady_clock::time_point, double>> last_;       // when, raw
  std::optional<std::pair<std::chrono::steady_clock::time_point, double>> rate_from_;  // when, total
  std::optional<double> rate_;  // per second, over the last kRateWindow or more
  double total_ = 0;
};

// Every meter this machine has, each with its info (available or why not). `sysfs_root`
// prefixes /sys paths, for tests; `nvml_library` overrides the NVML path.
std::vector<std::unique_ptr<EnergyMeter>> DiscoverEnergyMeters(const std::string& sysfs_root = "",
                                                               const std::string& nvml_library = "libnvidia-ml.so.1");

std::unique_ptr<EnergyMeter> OpenRaplMeter(const std::string& powercap_dir);
std::unique_ptr<EnergyMeter> OpenNvmlMeter(const std::string& library);
// Both hwmon kinds: amdgpu and Grace-Hopper (power1_oem_info).
std::vector<std::unique_ptr<EnergyMeter>> OpenHwmonMeters(const std::string& hwmon_dir);

}  // namespace ergobench

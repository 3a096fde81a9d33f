// The energy sampler: reads every available meter on a thread (every 100 ms by default)
// and keeps, per channel, the energy used since it started: counter differences where the
// hardware counts energy, the trapezoid integral of power where it only gives power. It
// also keeps the rank's total over time, so that energy over any span (the timed region,
// the time to accuracy) is read off afterwards.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "energy/energy_meter.h"

namespace ergobench {

struct ChannelEnergy {
  EnergyChannel channel;
  double joules = 0;                 // since the sampler started
  std::optional<double> watts;       // over the last interval (of a counter: at least 50 ms)
  bool from_counter = false;
};

// Power by device over the last interval: the channels that count toward the total, summed.
std::map<std::string, double> PowerByDevice(const std::vector<ChannelEnergy>& channels);

class EnergySampler {
 public:
  using Clock = std::chrono::steady_clock;

  // Unavailable meters are kept for info() only.
  explicit EnergySampler(std::vector<std::unique_ptr<EnergyMeter>> meters);
  ~EnergySampler();

  // True when some meter can read: otherwise there is no energy to report, not zero.
  bool measuring() const { return !channels_.empty(); }

  // Samples now and then every `interval` on a thread, calling on_sample after each.
  void Start(std::chrono::milliseconds interval, std::function<void(const std::vector<ChannelEnergy>&)> on_sample);
  // Stops the thread and samples until a reading taken after Stop was called, so that every
  // time before it lies within the samples (a meter whose readings lag, the agent, may take up
  // to its refresh interval).
  void Stop();

  // One sample asked at `now`; what the thread does, and what tests call. Its readings count at
  // the time they were taken (now less the meters' taken_before); one taken no later than the
  // last sample's (the agent had not sampled since) adds nothing.
  void SampleAt(Clock::time_point now);

  std::vector<ChannelEnergy> Channels() const;
  // The channels as of the last sample, and when its readings were taken.
  struct LastSample {
    std::vector<ChannelEnergy> channels;
    std::optional<Clock::time_point> taken;
  };
  LastSample Last() const;
  // The rank's total (channels with in_total) between two times, interpolated between
  // samples. Nothing when not measuring or when the span is outside the samples.
  std::optional<double> JoulesBetween(Clock::time_point from, Clock::time_point to) const;
  std::optional<double> TotalJoules() const;

  // The meters for the result's environment: name, available or why not, channels.
  nlohmann::json Describe() const;
  // What else ran on the node, from a meter that can tell (EnergyMeter::OthersOnNode).
  std::optional<std::vector<std::string>> OthersOnNode() const;

 private:
  struct Channel {
    EnergyMeter* meter;
    size_t index;
    ChannelEnergy energy;
    std::optional<double> first_counter;
    // A counter's power is its difference over at least kMinPowerWindow since this reading.
    std::optional<std::pair<Clock::time_point, double>> power_from;
    std::optional<double> last_watts;
    int failed_reads = 0;
    bool last_read_failed = false;  // then its energy so far is not the run's: totals are absent
  };
  bool TotalsBroken() const;
  std::optional<double> TotalAt(Clock::time_point t) const;

  std::vector<std::unique_ptr<EnergyMeter>> meters_;
  std::vector<Channel> channels_;
  mutable std::mutex mutex_;
  std::optional<Clock::time_point> last_sample_;
  std::vector<std::pair<Clock::time_point, double>> series_;  // (time, rank total)
  std::thread thread_;
  std::mutex wake_mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
};

}  // namespace ergobench

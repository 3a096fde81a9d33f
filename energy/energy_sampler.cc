#include "energy/energy_sampler.h"

#include <algorithm>
#include <thread>

namespace ergobench {

std::map<std::string, double> PowerByDevice(const std::vector<ChannelEnergy>& channels) {
  std::map<std::string, double> power;
  for (const ChannelEnergy& c : channels) {
    if (c.channel.in_total && c.watts) power[c.channel.device] += *c.watts;
  }
  return power;
}

EnergySampler::EnergySampler(std::vector<std::unique_ptr<EnergyMeter>> meters) : meters_(std::move(meters)) {
  for (auto& meter : meters_) {
    if (!meter->info().available) continue;
    for (size_t i = 0; i < meter->info().channels.size(); ++i) {
      Channel channel{meter.get(), i, {}, std::nullopt, std::nullopt, std::nullopt};
      channel.energy.channel = meter->info().channels[i];
      channels_.push_back(channel);
    }
  }
}

EnergySampler::~EnergySampler() { Stop(); }

// Shorter gaps come from the samples at the run's marks and at Stop, taken milliseconds after a
// periodic one: a counter that updates every few milliseconds gives noise there (often 0 W).
constexpr std::chrono::milliseconds kMinPowerWindow{50};

void EnergySampler::SampleAt(Clock::time_point asked) {
  std::map<EnergyMeter*, std::vector<ChannelSample>> samples;
  for (const Channel& c : channels_) {
    if (!samples.contains(c.meter)) samples[c.meter] = c.meter->Sample();
  }
  // A rank reads either the agent or its own meters (runner.cc), so the readings of one sample
  // share their lag; the oldest places them all (below 0: the agent took them after `asked`).
  std::optional<std::chrono::nanoseconds> lag;
  for (const auto& [meter, readings] : samples) {
    for (const ChannelSample& reading : readings) {
      if (!lag || reading.taken_before > *lag) lag = reading.taken_before;
    }
  }
  const Clock::time_point now = asked - std::chrono::duration_cast<Clock::duration>(lag.value_or(Clock::duration{}));
  std::lock_guard<std::mutex> lock(mutex_);
  if (last_sample_ && now <= *last_sample_) return;  // nothing newer than what the series has
  const double dt = last_sample_ ? std::chrono::duration<double>(now - *last_sample_).count() : 0;
  double total = 0;
  for (Channel& c : channels_) {
    const std::vector<ChannelSample>& readings = samples[c.meter];
    const ChannelSample sample = c.index < readings.size() ? readings[c.index] : ChannelSample{};
    c.last_read_failed = !sample.energy_joules && !sample.power_watts;
    if (c.last_read_failed) ++c.failed_reads;
    if (sample.energy_joules) {
      // A counter: energy is its difference from the first reading.
      if (!c.first_counter) c.first_counter = *sample.energy_joules;
      const double joules = *sample.energy_joules - *c.first_counter;
      if (!c.power_from) c.power_from = {now, joules};
      if (now - c.power_from->first >= kMinPowerWindow) {
        c.energy.watts = (joules - c.power_from->second) / std::chrono::duration<double>(now - c.power_from->first).count();
        c.power_from = {now, joules};
      }
      c.energy.joules = joules;
      c.energy.from_counter = true;
    } else if (sample.power_watts) {
      // Power only: the trapezoid between this reading and the last.
      if (c.last_watts && dt > 0) c.energy.joules += 0.5 * (*c.last_watts + *sample.power_watts) * dt;
      c.last_watts = sample.power_watts;
      c.energy.watts = sample.power_watts;
    }
    if (c.energy.channel.in_total) total += c.energy.joules;
  }
  last_sample_ = now;
  series_.emplace_back(now, total);
}

void EnergySampler::Start(std::chrono::milliseconds interval,
                          std::function<void(const std::vector<ChannelEnergy>&)> on_sample) {
  if (!measuring()) return;
  SampleAt(Clock::now());
  thread_ = std::thread([this, interval, on_sample = std::move(on_sample)] {
    std::unique_lock<std::mutex> lock(wake_mutex_);
    while (!wake_.wait_for(lock, interval, [this] { return stopping_; })) {
      lock.unlock();
      SampleAt(Clock::now());
      if (on_sample) on_sample(Channels());
      lock.lock();
    }
  });
}

void EnergySampler::Stop() {
  const Clock::time_point called = Clock::now();
  {
    std::lock_guard<std::mutex> lock(wake_mutex_);
    if (stopping_ || !thread_.joinable()) return;
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  // The last stretch counts too: sample until a reading was taken after `called`, polling at
  // most every 10 ms for at most twice the slowest meter's refresh.
  std::chrono::milliseconds refresh{0};
  for (const auto& meter : meters_) refresh = std::max(refresh, meter->info().refresh);
  const Clock::time_point deadline = called + 2 * refresh;
  for (;;) {
    const Clock::time_point now = Clock::now();
    SampleAt(now);
    if (Last().taken >= called || now >= deadline) return;
    std::this_thread::sleep_for(std::min<Clock::duration>(std::chrono::milliseconds(10), deadline - now));
  }
}

std::vector<ChannelEnergy> EnergySampler::Channels() const { return Last().channels; }

EnergySampler::LastSample EnergySampler::Last() const {
  std::lock_guard<std::mutex> lock(mutex_);
  LastSample last{{}, last_sample_};
  for (const Channel& c : channels_) last.channels.push_back(c.energy);
  return last;
}

std::optional<double> EnergySampler::TotalAt(Clock::time_point t) const {
  if (series_.empty() || t < series_.front().first || t > series_.back().first) return std::nullopt;
  const auto after = std::lower_bound(series_.begin(), series_.end(), t,
                                      [](const auto& point, Clock::time_point when) { return point.first < when; });
  if (after->first == t || after == series_.begin()) return after->second;
  const auto before = after - 1;
  const double span = std::chrono::duration<double>(after->first - before->first).count();
  const double part = std::chrono::duration<double>(t - before->first).count();
  return before->second + (after->second - before->second) * (span > 0 ? part / span : 0);
}

// A channel that counts toward the total and could not be read last time: what it counted
// since is unknown, so no total stands (a counter that recovers restores it).
bool EnergySampler::TotalsBroken() const {
  return std::any_of(channels_.begin(), channels_.end(),
                     [](const Channel& c) { return c.energy.channel.in_total && c.last_read_failed; });
}

std::optional<double> EnergySampler::JoulesBetween(Clock::time_point from, Clock::time_point to) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (TotalsBroken()) return std::nullopt;
  const auto a = TotalAt(from), b = TotalAt(to);
  if (!a || !b) return std::nullopt;
  return *b - *a;
}

std::optional<double> EnergySampler::TotalJoules() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (series_.empty() || TotalsBroken()) return std::nullopt;
  return series_.back().second;
}

nlohmann::json EnergySampler::Describe() const {
  std::lock_guard<std::mutex> lock(mutex_);
  nlohmann::json out = nlohmann::json::array();
  for (const auto& meter : meters_) {
    const MeterInfo& info = meter->info();
    nlohmann::json entry = {{"name", info.name}, {"available", info.available}};
    if (!info.reason.empty()) entry["reason"] = info.reason;
    for (const Channel& c : channels_) {
      if (c.meter != meter.get() || !c.last_read_failed) continue;
      entry["available"] = false;
      entry["reason"] = c.energy.channel.device + "/" + c.energy.channel.domain + " could not be read at the end (" +
                        std::to_string(c.failed_reads) + " failed reads)";
    }
    nlohmann::json channels = nlohmann::json::array();
    for (const auto& c : info.channels) channels.push_back(c.device + "/" + c.domain);
    if (!channels.empty()) entry["channels"] = channels;
    out.push_back(entry);
  }
  return out;
}

std::optional<std::vector<std::string>> EnergySampler::OthersOnNode() const {
  for (const auto& meter : meters_) {
    if (!meter->info().available) continue;
    if (auto others = meter->OthersOnNode()) return others;
  }
  return std::nullopt;
}

}  // namespace ergobench

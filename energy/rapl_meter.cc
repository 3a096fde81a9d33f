// RAPL through powercap sysfs: /sys/class/powercap/intel-rapl:<pkg>[:<sub>] zones, each with
// a name (package-0, core, uncore, dram, psys), an energy_uj counter and its
// max_energy_range_uj. AMD processors expose their RAPL counters the same way. Since Linux
// 5.10 energy_uj is readable by root only (CVE-2020-8694); the meter then says so.
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "energy/energy_meter.h"
#include "energy/sysfs.h"

namespace ergobench {
namespace {

namespace fs = std::filesystem;

struct Zone {
  std::string dir;
  EnergyChannel channel;
  CounterUnwrapper counter;
};

class RaplMeter final : public EnergyMeter {
 public:
  RaplMeter(MeterInfo info, std::vector<Zone> zones) : info_(std::move(info)), zones_(std::move(zones)) {}
  const MeterInfo& info() const override { return info_; }

  std::vector<ChannelSample> Sample() override {
    std::vector<ChannelSample> out;
    for (Zone& zone : zones_) {
      ChannelSample sample;
      auto uj = sysfs::ReadNumber(zone.dir + "/energy_uj");
      if (uj.ok()) sample.energy_joules = zone.counter.Update(*uj, std::chrono::steady_clock::now()) * 1e-6;
      out.push_back(sample);
    }
    return out;
  }

 private:
  MeterInfo info_;
  std::vector<Zone> zones_;
};

// "intel-rapl:1:0" → package index 1; the top zone's name says what it is.
EnergyChannel ChannelFor(const std::string& zone_dir_name, const std::string& name) {
  const size_t first = zone_dir_name.find(':');
  const size_t second = zone_dir_name.find(':', first + 1);
  const std::string package = zone_dir_name.substr(first + 1, second == std::string::npos ? std::string::npos
                                                                                          : second - first - 1);
  if (name == "psys") return {"platform", "psys", false};
  if (name.rfind("package", 0) == 0) return {"cpu" + package, "package", true};
  // DRAM is metered apart from the package; core and uncore are inside it.
  return {"cpu" + package, name, name == "dram"};
}

}  // namespace

double CounterUnwrapper::Update(double raw, std::chrono::steady_clock::time_point at) {
  if (last_) {
    const auto [last_at, last] = *last_;
    const double wrapped = (max_range_ - last) + raw;
    double counted = raw - last;
    if (raw < last) {
      // A wrap or a reset (the counter started over, counting only `raw`). With a rate, the one
      // nearer its prediction: a sampler late by over half the wrap time (a busy node, a counter
      // that wraps in seconds) still wraps. Without one, a wrap between two samples covers a
      // sliver of the range, never more than half of it.
      const double expected = rate_ ? *rate_ * std::chrono::duration<double>(at - last_at).count() : 0;
      const bool wrap = rate_ ? std::abs(wrapped - expected) <= std::abs(raw - expected) : wrapped <= max_range_ / 2;
      counted = wrap ? wrapped : raw;
    }
    total_ += counted;
  }
  last_ = {at, raw};
  // The rate over at least kRateWindow: readings milliseconds apart (a run's marks) would see a
  // counter that updates every few milliseconds stand still.
  if (!rate_from_) rate_from_ = {at, total_};
  if (at - rate_from_->first >= kRateWindow) {
    rate_ = (total_ - rate_from_->second) / std::chrono::duration<double>(at - rate_from_->first).count();
    rate_from_ = {at, total_};
  }
  return total_;
}

std::unique_ptr<EnergyMeter> OpenRaplMeter(const std::string& powercap_dir) {
  MeterInfo info;
  info.name = "rapl";
  std::vector<std::string> dirs;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(powercap_dir, error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("intel-rapl:", 0) == 0) dirs.push_back(entry.path().string());
  }
  std::sort(dirs.begin(), dirs.end());
  if (dirs.empty()) {
    info.reason = "no RAPL zones under " + powercap_dir;
    return std::make_unique<RaplMeter>(info, std::vector<Zone>{});
  }
  std::vector<Zone> zones;
  std::vector<std::string> problems;
  for (const std::string& dir : dirs) {
    auto name = sysfs::ReadLine(dir + "/name");
    auto max_range = sysfs::ReadNumber(dir + "/max_energy_range_uj");
    auto probe = sysfs::ReadNumber(dir + "/energy_uj");
    if (!name.ok() || !max_range.ok() || !probe.ok()) {
      Status why = !probe.ok() ? probe.status() : !name.ok() ? name.status() : max_range.status();
      std::string text = why.message();
      if (why.code() == StatusCode::kPermissionDenied) text += " (energy_uj is root-only since Linux 5.10)";
      problems.push_back(text);
      continue;
    }
    Zone zone{dir, ChannelFor(fs::path(dir).filename().string(), *name), CounterUnwrapper(*max_range)};
    zone.counter.Update(*probe, std::chrono::steady_clock::now());
    info.channels.push_back(zone.channel);
    zones.push_back(std::move(zone));
  }
  info.available = !zones.empty();
  if (!problems.empty()) info.reason = problems.front() + (problems.size() > 1 ? " (and " + std::to_string(problems.size() - 1) + " more zones)" : "");
  return std::make_unique<RaplMeter>(info, std::move(zones));
}

}  // namespace ergobench

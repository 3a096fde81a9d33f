// hwmon sysfs meters: AMD GPUs (driver name "amdgpu": energy1_input in µJ where present,
// else power1_average in µW) and NVIDIA Grace-Hopper (power1_average in µW, what it
// measures named by power1_oem_info, e.g. "Module Power Socket 0").
#include <algorithm>
#include <cctype>
#include <filesystem>

#include "energy/energy_meter.h"
#include "energy/sysfs.h"

namespace ergobench {
namespace {

namespace fs = std::filesystem;

struct Sensor {
  std::string dir;
  bool counter = false;  // energy1_input, else power1_average
  CounterUnwrapper unwrap{1.8446744073709552e19};  // a 64-bit µJ counter
};

class HwmonMeter final : public EnergyMeter {
 public:
  HwmonMeter(MeterInfo info, std::vector<Sensor> sensors) : info_(std::move(info)), sensors_(std::move(sensors)) {}
  const MeterInfo& info() const override { return info_; }

  std::vector<ChannelSample> Sample() override {
    std::vector<ChannelSample> out;
    for (Sensor& sensor : sensors_) {
      ChannelSample sample;
      if (sensor.counter) {
        if (auto uj = sysfs::ReadNumber(sensor.dir + "/energy1_input"); uj.ok()) {
          sample.energy_joules = sensor.unwrap.Update(*uj, std::chrono::steady_clock::now()) * 1e-6;
        }
      }
      if (auto uw = sysfs::ReadNumber(sensor.dir + "/power1_average"); uw.ok()) sample.power_watts = *uw * 1e-6;
      out.push_back(sample);
    }
    return out;
  }

 private:
  MeterInfo info_;
  std::vector<Sensor> sensors_;
};

// "Module Power Socket 0" → "module-power-socket-0"
std::string Slug(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

}  // namespace

std::vector<std::unique_ptr<EnergyMeter>> OpenHwmonMeters(const std::string& hwmon_dir) {
  std::vector<std::string> dirs;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(hwmon_dir, error)) dirs.push_back(entry.path().string());
  // hwmon10 after hwmon9: by number, not by text.
  std::sort(dirs.begin(), dirs.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  MeterInfo amd{"amdgpu", false, "", {}}, grace{"grace", false, "", {}};
  std::vector<Sensor> amd_sensors, grace_sensors;
  for (const std::string& dir : dirs) {
    auto name = sysfs::ReadLine(dir + "/name");
    if (!name.ok()) continue;
    const bool has_power = sysfs::ReadNumber(dir + "/power1_average").ok();
    const bool has_energy = sysfs::ReadNumber(dir + "/energy1_input").ok();
    if (*name == "amdgpu" && (has_power || has_energy)) {
      amd.channels.push_back({"gpu" + std::to_string(amd.channels.size()), "gpu", true});
      amd_sensors.push_back(Sensor{dir, has_energy});
    } else if (auto oem = sysfs::ReadLine(dir + "/power1_oem_info"); oem.ok() && has_power) {
      // Grace-Hopper reports module, Grace, CPU and SysIO power; the module one holds the rest.
      const std::string domain = Slug(*oem);
      const bool module = domain.rfind("module", 0) == 0;
      grace.channels.push_back({"grace" + std::to_string(grace_sensors.size()), domain, module});
      grace_sensors.push_back(Sensor{dir, false});
    }
  }
  std::vector<std::unique_ptr<EnergyMeter>> out;
  amd.available = !amd_sensors.empty();
  if (!amd.available) amd.reason = "no amdgpu hwmon sensor under " + hwmon_dir;
  grace.available = !grace_sensors.empty();
  if (!grace.available) grace.reason = "no hwmon sensor with power1_oem_info under " + hwmon_dir;
  out.push_back(std::make_unique<HwmonMeter>(amd, std::move(amd_sensors)));
  out.push_back(std::make_unique<HwmonMeter>(grace, std::move(grace_sensors)));
  return out;
}

std::vector<std::unique_ptr<EnergyMeter>> DiscoverEnergyMeters(const std::string& sysfs_root,
                                                               const std::string& nvml_library) {
  std::vector<std::unique_ptr<EnergyMeter>> meters;
  meters.push_back(OpenRaplMeter(sysfs_root + "/sys/class/powercap"));
  meters.push_back(OpenNvmlMeter(nvml_library));
  for (auto& meter : OpenHwmonMeters(sysfs_root + "/sys/class/hwmon")) meters.push_back(std::move(meter));
  return meters;
}

}  // namespace ergobench

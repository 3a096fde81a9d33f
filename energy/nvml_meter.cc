// NVIDIA GPUs through NVML, loaded with dlopen so that ergobench builds and runs without the
// driver. Energy comes from nvmlDeviceGetTotalEnergyConsumption (mJ since the driver
// loaded; Volta and newer); older GPUs give power (mW) for the sampler to integrate.
#include <dlfcn.h>

#include "energy/energy_meter.h"

namespace ergobench {
namespace {

using nvmlReturn_t = int;
using nvmlDevice_t = void*;
constexpr nvmlReturn_t kNvmlSuccess = 0;

struct NvmlApi {
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  nvmlReturn_t (*device_count)(unsigned int*) = nullptr;
  nvmlReturn_t (*device_by_index)(unsigned int, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*total_energy)(nvmlDevice_t, unsigned long long*) = nullptr;
  nvmlReturn_t (*power_usage)(nvmlDevice_t, unsigned int*) = nullptr;
};

template <typename F>
bool Bind(void* library, const char* symbol, F* out) {
  *out = reinterpret_cast<F>(dlsym(library, symbol));
  return *out != nullptr;
}

class NvmlMeter final : public EnergyMeter {
 public:
  NvmlMeter(MeterInfo info, void* library, NvmlApi api, std::vector<nvmlDevice_t> devices, std::vector<bool> counters)
      : info_(std::move(info)), library_(library), api_(api), devices_(std::move(devices)),
        has_counter_(std::move(counters)) {}
  ~NvmlMeter() override {
    if (library_ == nullptr) return;
    if (api_.shutdown != nullptr && !devices_.empty()) api_.shutdown();
    dlclose(library_);
  }
  const MeterInfo& info() const override { return info_; }

  std::vector<ChannelSample> Sample() override {
    std::vector<ChannelSample> out;
    for (size_t i = 0; i < devices_.size(); ++i) {
      ChannelSample sample;
      unsigned long long millijoules = 0;
      if (has_counter_[i] && api_.total_energy(devices_[i], &millijoules) == kNvmlSuccess) {
        sample.energy_joules = static_cast<double>(millijoules) * 1e-3;
      }
      unsigned int milliwatts = 0;
      if (api_.power_usage(devices_[i], &milliwatts) == kNvmlSuccess) sample.power_watts = milliwatts * 1e-3;
      out.push_back(sample);
    }
    return out;
  }

 private:
  MeterInfo info_;
  void* library_;
  NvmlApi api_;
  std::vector<nvmlDevice_t> devices_;
  std::vector<bool> has_counter_;
};

}  // namespace

std::unique_ptr<EnergyMeter> OpenNvmlMeter(const std::string& library_path) {
  MeterInfo info;
  info.name = "nvml";
  auto unavailable = [&info](std::string why, void* library) {
    if (library != nullptr) dlclose(library);
    info.reason = std::move(why);
    return std::make_unique<NvmlMeter>(info, nullptr, NvmlApi{}, std::vector<nvmlDevice_t>{}, std::vector<bool>{});
  };
  void* library = dlopen(library_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) return unavailable(library_path + " not loadable (no NVIDIA driver?)", nullptr);
  NvmlApi api;
  if (!Bind(library, "nvmlInit_v2", &api.init) || !Bind(library, "nvmlShutdown", &api.shutdown) ||
      !Bind(library, "nvmlDeviceGetCount_v2", &api.device_count) ||
      !Bind(library, "nvmlDeviceGetHandleByIndex_v2", &api.device_by_index) ||
      !Bind(library, "nvmlDeviceGetPowerUsage", &api.power_usage)) {
    return unavailable(library_path + " lacks the NVML functions ergobench needs", library);
  }
  Bind(library, "nvmlDeviceGetTotalEnergyConsumption", &api.total_energy);  // optional: pre-Volta
  if (const nvmlReturn_t r = api.init(); r != kNvmlSuccess) {
    return unavailable("nvmlInit failed with NVML error " + std::to_string(r), library);
  }
  unsigned int count = 0;
  if (api.device_count(&count) != kNvmlSuccess || count == 0) {
    api.shutdown();
    return unavailable("NVML sees no GPU", library);
  }
  std::vector<nvmlDevice_t> devices;
  std::vector<bool> counters;
  for (unsigned int i = 0; i < count; ++i) {
    nvmlDevice_t device = nullptr;
    if (api.device_by_index(i, &device) != kNvmlSuccess) continue;
    unsigned long long probe = 0;
    counters.push_back(api.total_energy != nullptr && api.total_energy(device, &probe) == kNvmlSuccess);
    devices.push_back(device);
    info.channels.push_back({"gpu" + std::to_string(i), "gpu", true});
  }
  info.available = !devices.empty();
  if (!info.available) info.reason = "no GPU handle could be opened";
  return std::make_unique<NvmlMeter>(info, library, api, std::move(devices), std::move(counters));
}

}  // namespace ergobench

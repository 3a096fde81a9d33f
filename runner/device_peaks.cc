#include "runner/device_peaks.h"

#include <array>

namespace ergobench {
namespace {

struct Keyed {
  const char* key;  // a substring of the reported name
  DevicePeak peak;
};

constexpr const char* kH100 = "NVIDIA H100 Tensor Core GPU datasheet (H100 SXM, H100 NVL), 2023";
constexpr const char* kH100Pcie = "NVIDIA H100 PCIe datasheet, 2022";
constexpr const char* kH200 = "NVIDIA H200 Tensor Core GPU datasheet (H200 SXM, H200 NVL), 2024";
constexpr const char* kGh200 = "NVIDIA GH200 Grace Hopper Superchip datasheet, 2024";
constexpr const char* kA100 = "NVIDIA A100 Tensor Core GPU datasheet, 2021";
constexpr const char* kMi250x = "AMD Instinct MI250X data sheet (FP32 matrix)";
constexpr const char* kMi300x = "AMD Instinct MI300X data sheet";

// Most specific keys first: "GH200" contains "H200", "H100 PCIe" contains "H100".
constexpr std::array<Keyed, 9> kPeaks = {{
    {"GH200", {"GH200", 67, 494.5, 989.5, 989.5, 1979, kGh200}},
    {"H200 NVL", {"H200 NVL", 60, 417.5, 835.5, 835.5, 1670.5, kH200}},
    {"H200", {"H200 SXM", 67, 494.5, 989.5, 989.5, 1979, kH200}},
    {"H100 NVL", {"H100 NVL", 60, 417.5, 835.5, 835.5, 1670.5, kH100}},
    {"H100 PCIe", {"H100 PCIe", 51, 378, 756.5, 756.5, 1513, kH100Pcie}},
    {"H100", {"H100 SXM", 67, 494.5, 989.5, 989.5, 1979, kH100}},
    {"A100", {"A100", 19.5, 156, 312, 312, 0, kA100}},
    {"MI250X", {"MI250X", 95.7, 0, 383, 383, 0, kMi250x}},
    {"MI300X", {"MI300X", 163.4, 653.7, 1307.4, 1307.4, 2614.9, kMi300x}},
}};

}  // namespace

std::optional<DevicePeak> FindDevicePeak(const std::string& device_name) {
  for (const Keyed& entry : kPeaks) {
    if (device_name.find(entry.key) != std::string::npos) return entry.peak;
  }
  return std::nullopt;
}

double PeakTflops(const DevicePeak& peak, const std::string& precision) {
  if (precision == "fp32") return peak.fp32;
  if (precision == "tf32") return peak.tf32;
  if (precision == "bf16") return peak.bf16;
  if (precision == "fp16") return peak.fp16;
  if (precision == "fp8") return peak.fp8;
  return 0;
}

}  // namespace ergobench

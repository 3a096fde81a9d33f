// The peak dense FLOP/s of accelerators, what MFU divides by on a GPU: vendors' datasheet
// figures without structured sparsity (NVIDIA's "with sparsity" rates halved), read
// 2026-11-27. Keyed by the name NVML, the CUDA runtime or ROCm's sysfs reports ("NVIDIA
// H200", "NVIDIA H100 80GB HBM3", "AMD Instinct MI300X"). The peakTflops hyperparameter
// overrides it, as for CPUs (cpu_peak.h).
#pragma once

#include <optional>
#include <string>

namespace ergobench {

struct DevicePeak {
  const char* model;   // "H100 SXM"
  double fp32 = 0;     // TFLOP/s; plain FP32 (not TF32): PyTorch's default for matrix products
  double tf32 = 0;     // 0 where the device has no such mode
  double bf16 = 0;
  double fp16 = 0;
  double fp8 = 0;
  const char* source;  // the datasheet
};

// The entry whose key the name contains (the most specific first: "H100 PCIe" before "H100");
// nullopt for a device not in the table.
std::optional<DevicePeak> FindDevicePeak(const std::string& device_name);

// The peak for a training precision ("fp32", "tf32", "bf16", "fp16", "fp8"); 0 where the
// device lacks it or the precision is unknown.
double PeakTflops(const DevicePeak& peak, const std::string& precision);

}  // namespace ergobench

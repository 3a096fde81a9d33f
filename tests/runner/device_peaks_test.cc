#include "runner/device_peaks.h"

#include <gtest/gtest.h>

namespace ergobench {
namespace {

std::string ModelOf(const std::string& name) {
  const std::optional<DevicePeak> peak = FindDevicePeak(name);
  return peak ? peak->model : "none";
}

// The names as nvidia-smi, NVML and ROCm report them; the most specific entry wins.
TEST(DevicePeaksTest, ReportedNamesFindTheirEntry) {
  EXPECT_EQ(ModelOf("NVIDIA H200"), "H200 SXM");  // what the lent H200 reported (bench/RESULTS.md)
  EXPECT_EQ(ModelOf("NVIDIA H200 NVL"), "H200 NVL");
  EXPECT_EQ(ModelOf("NVIDIA GH200 480GB"), "GH200") << "not the H200 its name contains";
  EXPECT_EQ(ModelOf("NVIDIA H100 80GB HBM3"), "H100 SXM");
  EXPECT_EQ(ModelOf("NVIDIA H100 PCIe"), "H100 PCIe");
  EXPECT_EQ(ModelOf("NVIDIA H100 NVL"), "H100 NVL");
  EXPECT_EQ(ModelOf("NVIDIA A100-SXM4-80GB"), "A100");
  EXPECT_EQ(ModelOf("AMD Instinct MI300X"), "MI300X");
  EXPECT_EQ(ModelOf("AMD Instinct MI250X"), "MI250X");
  EXPECT_EQ(ModelOf("Tesla T4"), "none");
}

// Datasheet figures, dense (NVIDIA's sparse rates halved).
TEST(DevicePeaksTest, ThePeakOfEachPrecision) {
  const DevicePeak h200 = *FindDevicePeak("NVIDIA H200");
  EXPECT_EQ(PeakTflops(h200, "fp32"), 67);
  EXPECT_EQ(PeakTflops(h200, "tf32"), 494.5);
  EXPECT_EQ(PeakTflops(h200, "bf16"), 989.5);
  EXPECT_EQ(PeakTflops(h200, "fp16"), 989.5);
  EXPECT_EQ(PeakTflops(h200, "fp8"), 1979);
  const DevicePeak a100 = *FindDevicePeak("NVIDIA A100 80GB PCIe");
  EXPECT_EQ(PeakTflops(a100, "bf16"), 312);
  EXPECT_EQ(PeakTflops(a100, "fp8"), 0) << "the A100 has no FP8";
  EXPECT_EQ(PeakTflops(a100, "int4"), 0) << "not a training precision";
  EXPECT_EQ(PeakTflops(*FindDevicePeak("NVIDIA H100 PCIe"), "bf16"), 756.5);
  EXPECT_EQ(PeakTflops(*FindDevicePeak("AMD Instinct MI300X"), "bf16"), 1307.4);
}

}  // namespace
}  // namespace ergobench

#include "runner/cuda/cuda_runtime.h"

#include <gtest/gtest.h>

namespace ergobench {
namespace {

// On a machine without NVIDIA's driver (CI's) the CUDA runtime fails cleanly, and the error
// says what is missing; where a GPU is visible, it is counted and named.
TEST(CudaRuntimeTest, WithoutADriverTheErrorNamesWhatIsMissing) {
  StatusOr<int> count = CudaDeviceCount();
  if (count.ok()) {
    EXPECT_GE(*count, 1);
    EXPECT_FALSE(CudaDeviceName(0).empty());
    StatusOr<std::unique_ptr<DeviceRuntime>> device = OpenCudaRuntime(*count);  // local rank count: device 0
    ASSERT_TRUE(device.ok()) << device.status().ToString();
    EXPECT_EQ((*device)->device(), 0);
    return;
  }
  EXPECT_EQ(count.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(count.status().message().find("libcuda.so.1"), std::string::npos) << count.status().message();
  StatusOr<std::unique_ptr<DeviceRuntime>> device = OpenCudaRuntime(0);
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.status().message(), count.status().message());
  EXPECT_EQ(CudaDeviceName(0), "");
}

}  // namespace
}  // namespace ergobench

// The real DeviceRuntime: the CUDA runtime (linked statically; it reaches the driver,
// libcuda.so.1, at run time) on one device. Collectives go on the device's legacy default
// stream, the one libtorch computes on unless told otherwise, so that a collective starts
// after the kernels that produced its input and the next kernel waits for it.
#pragma once

#include <memory>
#include <string>

#include "runner/cuda/device_runtime.h"

namespace ergobench {

// The device for a rank: `local_rank` modulo the devices this process sees. A machine without
// a driver or a device gets FailedPrecondition naming what is missing.
StatusOr<std::unique_ptr<DeviceRuntime>> OpenCudaRuntime(int local_rank);

// The CUDA devices this process sees, or the reason it sees none.
StatusOr<int> CudaDeviceCount();

// The name the driver gives device `index` ("NVIDIA H200"); empty when it cannot say.
std::string CudaDeviceName(int index);

}  // namespace ergobench

#include "runner/cuda/cuda_runtime.h"

#include <cuda_runtime_api.h>

#include <cstdio>

#include "base/units.h"

namespace ergobench {
namespace {

std::string CudaError(const char* call, cudaError_t error) {
  return std::string(call) + ": " + cudaGetErrorName(error) + " (" + cudaGetErrorString(error) + ")";
}

class CudaRuntime : public DeviceRuntime {
 public:
  CudaRuntime(int device, int count) : device_(device), count_(count) {}

  std::string Describe() const override {
    cudaDeviceProp properties{};
    int driver = 0;
    cudaGetDeviceProperties(&properties, device_);
    cudaDriverGetVersion(&driver);
    char text[320];
    std::snprintf(text, sizeof text, "%s (device %d of %d), driver %d.%d, %s", properties.name, device_, count_,
                  driver / 1000, driver % 1000 / 10, FormatBytes(static_cast<double>(properties.totalGlobalMem)).c_str());
    return text;
  }
  int device() const override { return device_; }

  StatusOr<void*> Allocate(size_t bytes) override {
    void* pointer = nullptr;
    if (cudaError_t e = cudaMalloc(&pointer, bytes); e != cudaSuccess) {
      cudaGetLastError();  // an allocation failure is not sticky; clear it
      return Status::Unavailable("cannot allocate " + FormatBytes(static_cast<double>(bytes)) + " on GPU " +
                                 std::to_string(device_) + ": " + CudaError("cudaMalloc", e));
    }
    return pointer;
  }
  void Free(void* pointer) override { cudaFree(pointer); }

  Status CopyToDevice(void* destination, const void* source, size_t bytes) override {
    return Copy(destination, source, bytes, cudaMemcpyHostToDevice);
  }
  Status CopyToHost(void* destination, const void* source, size_t bytes) override {
    return Copy(destination, source, bytes, cudaMemcpyDeviceToHost);
  }

  bool IsDeviceMemory(const void* pointer) const override {
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    return attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
  }

  void* stream() override { return cudaStreamLegacy; }
  StatusOr<bool> StreamDone() override {
    const cudaError_t e = cudaStreamQuery(cudaStreamLegacy);
    if (e == cudaSuccess) return true;
    if (e == cudaErrorNotReady) return false;
    return Status::Internal(CudaError("cudaStreamQuery", e));
  }

 private:
  // Ordered on the legacy stream like the collectives, and finished when it returns.
  Status Copy(void* destination, const void* source, size_t bytes, cudaMemcpyKind kind) {
    if (cudaError_t e = cudaMemcpyAsync(destination, source, bytes, kind, cudaStreamLegacy); e != cudaSuccess) {
      return Status::Internal(CudaError("cudaMemcpyAsync", e));
    }
    if (cudaError_t e = cudaStreamSynchronize(cudaStreamLegacy); e != cudaSuccess) {
      return Status::Internal(CudaError("cudaStreamSynchronize", e));
    }
    return Status::Ok();
  }

  int device_;
  int count_;
};

}  // namespace

StatusOr<int> CudaDeviceCount() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice || e == cudaErrorStubLibrary ||
      e == cudaErrorInitializationError || e == cudaErrorNotSupported || e == cudaErrorSystemNotReady ||
      e == cudaErrorCompatNotSupportedOnDevice || e == cudaErrorSystemDriverMismatch) {
    return Status::FailedPrecondition("no usable CUDA device: " + CudaError("cudaGetDeviceCount", e) +
                                      "; a GPU needs NVIDIA's driver (libcuda.so.1) and a device visible to this "
                                      "process (CUDA_VISIBLE_DEVICES, the pod's nvidia.com/gpu)");
  }
  if (e != cudaSuccess) return Status::FailedPrecondition(CudaError("cudaGetDeviceCount", e));
  if (count == 0) return Status::FailedPrecondition("no CUDA device is visible to this process");
  return count;
}

std::string CudaDeviceName(int index) {
  cudaDeviceProp properties{};
  if (cudaGetDeviceProperties(&properties, index) != cudaSuccess) {
    cudaGetLastError();
    return "";
  }
  return properties.name;
}

StatusOr<std::unique_ptr<DeviceRuntime>> OpenCudaRuntime(int local_rank) {
  ASSIGN_OR_RETURN(const int count, CudaDeviceCount());
  const int device = local_rank % count;
  if (cudaError_t e = cudaSetDevice(device); e != cudaSuccess) {
    return Status::FailedPrecondition(CudaError("cudaSetDevice", e));
  }
  return std::unique_ptr<DeviceRuntime>(std::make_unique<CudaRuntime>(device, count));
}

}  // namespace ergobench

// What the NCCL communicator needs of a GPU: device memory, copies, and one stream whose
// completion it waits for. An interface so that tests drive the communicator on host memory
// (tests/runner/cuda: a fake NCCL with ranks as threads); OpenCudaRuntime is the real one.
#pragma once

#include <cstddef>
#include <string>

#include "base/status.h"

namespace ergobench {

class DeviceRuntime {
 public:
  virtual ~DeviceRuntime() = default;

  // "NVIDIA H200 (device 0 of 1), driver 13.0, 139.8 GiB".
  virtual std::string Describe() const = 0;
  virtual int device() const = 0;

  virtual StatusOr<void*> Allocate(size_t bytes) = 0;
  virtual void Free(void* pointer) = 0;
  virtual Status CopyToDevice(void* destination, const void* source, size_t bytes) = 0;
  virtual Status CopyToHost(void* destination, const void* source, size_t bytes) = 0;
  // Whether `pointer` is this device's memory; host memory is staged through it.
  virtual bool IsDeviceMemory(const void* pointer) const = 0;

  // The stream collectives are queued on (a cudaStream_t), and whether its work has finished:
  // true, false while it runs, or the error that ended it.
  virtual void* stream() = 0;
  virtual StatusOr<bool> StreamDone() = 0;
};

}  // namespace ergobench

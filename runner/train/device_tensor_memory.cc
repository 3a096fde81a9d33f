#include "runner/train/device_tensor_memory.h"

#if ERGOBENCH_CUDA_MEMORY_STATS
#include <c10/cuda/CUDACachingAllocator.h>

#include <deque>
#include <mutex>
#endif

namespace ergobench {
namespace {

#if ERGOBENCH_CUDA_MEMORY_STATS
// The allocator's statistics, whichever namespace this libtorch declares their type in.
using DeviceStats = decltype(c10::cuda::CUDACachingAllocator::getDeviceStats(c10::DeviceIndex{0}));

// Index 0 of each statistic is the aggregate over the allocator's small and large pools.
class CudaTensorMemory final : public TensorMemory {
 public:
  explicit CudaTensorMemory(c10::DeviceIndex index) : device_(index) {}
  ~CudaTensorMemory() override = default;

  int64_t live_bytes() const override { return Stats().allocated_bytes[0].current; }
  int64_t peak_bytes() const override { return Stats().allocated_bytes[0].peak; }
  std::optional<int64_t> peak_reserved_bytes() const override { return Stats().reserved_bytes[0].peak; }
  void ResetPeak() override { c10::cuda::CUDACachingAllocator::resetPeakStats(device_); }
  c10::DeviceIndex device() const { return device_; }

 private:
  DeviceStats Stats() const { return c10::cuda::CUDACachingAllocator::getDeviceStats(device_); }
  c10::DeviceIndex device_;
};

TensorMemory* CudaMemory(c10::DeviceIndex index) {
  // One per device for the life of the process, as the allocator's statistics are.
  static std::mutex mutex;
  static auto* const memories = new std::deque<CudaTensorMemory>;
  const std::lock_guard<std::mutex> lock(mutex);
  for (CudaTensorMemory& memory : *memories) {
    if (memory.device() == index) return &memory;
  }
  return &memories->emplace_back(index);
}
#endif

}  // namespace

TensorMemory* DeviceTensorMemory(c10::Device device) {
  if (!device.is_cuda()) return TensorMemory::Install();
#if ERGOBENCH_CUDA_MEMORY_STATS
  return CudaMemory(device.has_index() ? device.index() : 0);
#else
  return nullptr;
#endif
}

}  // namespace ergobench

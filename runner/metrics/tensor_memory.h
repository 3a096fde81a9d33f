// Live and peak bytes of the CPU tensors torch allocates, counted by a wrapper around its CPU
// allocator (c10::SetCPUAllocator). Process-wide: a rank's figures where ranks are processes,
// as ergobench runs them; test ranks that are threads share one count. Allocations that do
// not go through torch's allocator (oneDNN's scratch space, say) are not in it; the process's
// peak RSS (memory_accounting.h) is.
#pragma once

#include <cstdint>

namespace ergobench {

class TensorMemory {
 public:
  // Wraps the allocator on the first call and returns the same counter after; nullptr where
  // torch would not take the wrapper. Tensors allocated before it are not counted.
  static TensorMemory* Install();

  virtual int64_t live_bytes() const = 0;
  virtual int64_t peak_bytes() const = 0;
  // Starts a new peak from the bytes live now.
  virtual void ResetPeak() = 0;

 protected:
  virtual ~TensorMemory() = default;  // lives as long as the process: tensors may outlive anything
};

}  // namespace ergobench

// Live and peak bytes of the CPU tensors torch allocates, counted by the allocator the runner
// gives torch (c10::SetCPUAllocator); and the runner's heap settings. Process-wide: a rank's
// figures where ranks are processes, as ergobench runs them; test ranks that are threads share
// one count. Allocations that do not go through torch's allocator (oneDNN's scratch space,
// say) are not in it; the process's peak RSS (memory_accounting.h) is.
#pragma once

#include <cstdint>

namespace ergobench {

class TensorMemory {
 public:
  // Sets torch's CPU allocator on the first call and returns the same counter after; nullptr
  // where torch would not take it. Tensors allocated before it are not counted.
  static TensorMemory* Install();

  virtual int64_t live_bytes() const = 0;
  virtual int64_t peak_bytes() const = 0;
  // Starts a new peak from the bytes live now.
  virtual void ResetPeak() = 0;

 protected:
  virtual ~TensorMemory() = default;  // lives as long as the process: tensors may outlive anything
};

// A training step allocates and frees the same large activation and gradient tensors every
// step. Above glibc's mmap threshold each one is a fresh mmap, page-faulted in and unmapped
// again: on ResNet-20 that was a fifth of the run spent in the kernel. Serving them from a
// heap that keeps its memory makes the steady state fault-free. Called first thing by the
// runner's main.
void KeepLargeAllocationsInTheHeap();

}  // namespace ergobench

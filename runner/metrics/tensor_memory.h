// Live and peak bytes of the tensors torch allocates on the training device: on the CPU counted
// by the allocator the runner gives torch (c10::SetCPUAllocator), on a GPU read from torch's
// CUDA caching allocator (runner/train/training_device.h); and the runner's heap settings. Process-wide: a rank's
// figures where ranks are processes, as ergobench runs them; test ranks that are threads share
// one count. Allocations that do not go through torch's allocator (oneDNN's scratch space,
// say) are not in it; the process's peak RSS (memory_accounting.h) is.
#pragma once

#include <cstdint>
#include <optional>

namespace ergobench {

// The most a training step held: bytes of live tensors, and on a GPU the bytes torch's caching
// allocator had reserved from it (live tensors and the free blocks it keeps), which is what
// decides whether the next size fits.
struct TensorPeak {
  int64_t tensor_bytes = 0;
  std::optional<int64_t> reserved_bytes;
};

class TensorMemory {
 public:
  // Sets torch's CPU allocator on the first call and returns the same counter after; nullptr
  // where torch would not take it. Tensors allocated before it are not counted.
  static TensorMemory* Install();

  virtual int64_t live_bytes() const = 0;
  virtual int64_t peak_bytes() const = 0;
  // The most bytes reserved from the device since ResetPeak; absent on the CPU, where the heap's
  // share is the process's resident set.
  virtual std::optional<int64_t> peak_reserved_bytes() const { return std::nullopt; }
  // Starts a new peak from the bytes live now.
  virtual void ResetPeak() = 0;
  TensorPeak Peak() const { return {peak_bytes(), peak_reserved_bytes()}; }

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

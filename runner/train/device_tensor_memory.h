// The tensor memory of a GPU that a rank trains on, from torch's CUDA caching allocator: the
// bytes of live tensors and the bytes reserved from the device, with their peaks, as
// torch.cuda.max_memory_allocated and max_memory_reserved report them.
#pragma once

#include <c10/core/Device.h>

#include "runner/metrics/tensor_memory.h"

namespace ergobench {

// The CPU's counting allocator (TensorMemory::Install) for the CPU; for a CUDA device, its
// caching allocator's figures; null where this runner was built without them
// (ERGOBENCH_CUDA_MEMORY_STATS off, or a libtorch without CUDA): no figure rather than the
// host's counts standing in for the GPU's.
TensorMemory* DeviceTensorMemory(c10::Device device);

}  // namespace ergobench

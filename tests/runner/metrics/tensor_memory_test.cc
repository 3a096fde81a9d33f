// The counting allocator against tensors of known size: live bytes follow every allocation
// and release exactly, and the peak holds the most live at once since the last reset.
#include "runner/metrics/tensor_memory.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include <c10/core/CPUAllocator.h>
#include <torch/torch.h>

namespace ergobench {
namespace {

TEST(TensorMemoryTest, CountsEveryTensorsBytesWhileItLives) {
  TensorMemory* memory = TensorMemory::Install();
  ASSERT_NE(memory, nullptr);
  EXPECT_EQ(TensorMemory::Install(), memory);  // once per process
  const int64_t before = memory->live_bytes();
  memory->ResetPeak();
  {
    torch::Tensor a = torch::empty({1024, 256});                     // 1 MiB of float
    EXPECT_EQ(memory->live_bytes(), before + (1 << 20));
    torch::Tensor b = torch::zeros({1000}, torch::kFloat64);         // 8000 bytes
    EXPECT_EQ(memory->live_bytes(), before + (1 << 20) + 8000);
    torch::Tensor view = a.slice(0, 0, 10);                          // shares a's storage
    EXPECT_EQ(memory->live_bytes(), before + (1 << 20) + 8000);
  }
  EXPECT_EQ(memory->live_bytes(), before);
  EXPECT_EQ(memory->peak_bytes(), before + (1 << 20) + 8000);
  memory->ResetPeak();
  EXPECT_EQ(memory->peak_bytes(), before);
  // An operation's result and temporaries count too: a 512 KiB sum of two 512 KiB tensors.
  torch::Tensor x = torch::ones({131072});
  torch::Tensor y = x + x;
  EXPECT_EQ(memory->live_bytes(), before + 2 * 524288);
}

// Some kernels take raw memory from the CPU allocator; it is counted and given back alike.
TEST(TensorMemoryTest, RawAllocationsAreCountedToo) {
  TensorMemory* memory = TensorMemory::Install();
  ASSERT_NE(memory, nullptr);
  const int64_t before = memory->live_bytes();
  c10::Allocator* allocator = c10::GetCPUAllocator();
  void* raw = allocator->raw_allocate(4096);
  ASSERT_NE(raw, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(raw) % 64, 0u);  // c10's alignment
  EXPECT_EQ(memory->live_bytes(), before + 4096);
  allocator->raw_deallocate(raw);
  EXPECT_EQ(memory->live_bytes(), before);
}

// torch's vectorised kernels expect c10's 64-byte alignment, whatever the size.
TEST(TensorMemoryTest, DataIsAlignedTo64Bytes) {
  ASSERT_NE(TensorMemory::Install(), nullptr);
  for (int64_t elements : {0, 1, 3, 17, 1000, 1 << 20}) {
    const torch::Tensor t = torch::empty({elements}, torch::kUInt8);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data_ptr()) % 64, 0u) << elements << " bytes";
  }
}

// In the runner's heap, which keeps large blocks, a freed block serves the next request of its
// size. Through c10's posix_memalign it did not (glibc asks for size + alignment): each 48 MiB
// buffer of this loop took fresh memory, as ZeRO-3's gathered blocks did every step.
TEST(TensorMemoryTest, AFreedBlockServesTheNextOfItsSize) {
  KeepLargeAllocationsInTheHeap();
  ASSERT_NE(TensorMemory::Install(), nullptr);
  std::set<void*> buffers;
  std::vector<torch::Tensor> kept;
  for (int i = 0; i < 8; ++i) {
    const torch::Tensor buffer = torch::empty({12 << 20});  // freed at the end of the iteration
    buffers.insert(buffer.data_ptr());
    kept.push_back(torch::empty({6 << 20}));  // after it: the freed buffer is not the heap's top
  }
  EXPECT_EQ(buffers.size(), 1u);
}

}  // namespace
}  // namespace ergobench

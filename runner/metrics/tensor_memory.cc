#include "runner/metrics/tensor_memory.h"

#include <malloc.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>
#include <torch/csrc/api/include/torch/version.h>

namespace ergobench {
namespace {

// torch's CPU allocator for the runner's training tasks. It counts, and it allocates with
// malloc itself, aligned by hand, rather than through c10's posix_memalign: glibc 2.36's
// memalign asks for size + alignment, so a freed block never serves the next request of the
// same size. A step allocates and frees the same large buffers over and over (ZeRO-3's
// gathered blocks, activations, packed gradients), and each would take fresh memory until
// the heap was trimmed: gpt2-medium's ZeRO-3 ranks peaked 0.7 GiB higher through memalign.
// Each block starts with a header holding the malloc'ed pointer, so that the pointer handed
// out is its own deleter context: torch's raw_allocate (which some kernels use) requires it.
class CountingCpuAllocator final : public c10::Allocator, public TensorMemory {
 public:
  // libtorch 2.3 made allocate() non-const and added copy_data(); Debian's 1.13 has neither.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 3)
  c10::DataPtr allocate(size_t bytes) override { return Allocate(bytes); }
  void copy_data(void* destination, const void* source, size_t bytes) const override {
    std::memcpy(destination, source, bytes);
  }
#else
  c10::DataPtr allocate(size_t bytes) const override { return Allocate(bytes); }
#endif
  c10::DeleterFnPtr raw_deleter() const override { return &Release; }

  int64_t live_bytes() const override { return live_.load(); }
  int64_t peak_bytes() const override { return peak_.load(); }
  void ResetPeak() override { peak_.store(live_.load()); }

 private:
  c10::DataPtr Allocate(size_t bytes) const {
    void* raw = std::malloc(bytes + kHeaderBytes + kAlignment);
    TORCH_CHECK(raw != nullptr, "CPU allocator: not enough memory for ", bytes, " bytes");
    const uintptr_t after_header = reinterpret_cast<uintptr_t>(raw) + kHeaderBytes;
    auto* data = reinterpret_cast<char*>((after_header + kAlignment - 1) & ~uintptr_t{kAlignment - 1});
    new (data - kHeaderBytes) Header{raw, static_cast<int64_t>(bytes), this};
    const int64_t live = live_.fetch_add(static_cast<int64_t>(bytes)) + static_cast<int64_t>(bytes);
    int64_t peak = peak_.load();
    while (live > peak && !peak_.compare_exchange_weak(peak, live)) {
    }
    return {data, data, &Release, c10::Device(c10::DeviceType::CPU)};
  }

  struct Header {
    void* raw;  // what malloc returned: the block this header sits in
    int64_t bytes;
    const CountingCpuAllocator* owner;
  };
  static constexpr size_t kHeaderBytes = 64;
  static constexpr size_t kAlignment = 64;  // c10's, for vectorised kernels
  static_assert(sizeof(Header) <= kHeaderBytes);

  static void Release(void* data) {
    auto* header = reinterpret_cast<Header*>(static_cast<char*>(data) - kHeaderBytes);
    header->owner->live_.fetch_sub(header->bytes);
    std::free(header->raw);
  }

  mutable std::atomic<int64_t> live_{0};
  mutable std::atomic<int64_t> peak_{0};
};

}  // namespace

TensorMemory* TensorMemory::Install() {
  // Never destroyed: a tensor freed at exit still calls back into it.
  static CountingCpuAllocator* const counting = [] {
    auto* allocator = new CountingCpuAllocator();
    c10::SetCPUAllocator(allocator, /*priority=*/100);
    return allocator;
  }();
  return c10::GetCPUAllocator() == counting ? counting : nullptr;
}

void KeepLargeAllocationsInTheHeap() {
  mallopt(M_MMAP_THRESHOLD, 512 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, 64 << 20);
}

}  // namespace ergobench

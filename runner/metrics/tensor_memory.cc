#include "runner/metrics/tensor_memory.h"

#include <atomic>
#include <new>

#include <c10/core/CPUAllocator.h>

namespace ergobench {
namespace {

// Each block starts with a header holding the inner allocation, so that the pointer handed out
// is its own deleter context: torch's raw_allocate (which some kernels use) requires it.
class CountingCpuAllocator final : public c10::Allocator, public TensorMemory {
 public:
  explicit CountingCpuAllocator(c10::Allocator* inner) : inner_(inner) {}

  c10::DataPtr allocate(size_t bytes) const override {
    c10::DataPtr inner = inner_->allocate(bytes + kHeaderBytes);
    auto* base = static_cast<char*>(inner.get());
    const c10::Device device = inner.device();
    new (base) Header{std::move(inner), static_cast<int64_t>(bytes), this};
    const int64_t live = live_.fetch_add(static_cast<int64_t>(bytes)) + static_cast<int64_t>(bytes);
    int64_t peak = peak_.load();
    while (live > peak && !peak_.compare_exchange_weak(peak, live)) {
    }
    void* data = base + kHeaderBytes;
    return {data, data, &Release, device};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &Release; }

  int64_t live_bytes() const override { return live_.load(); }
  int64_t peak_bytes() const override { return peak_.load(); }
  void ResetPeak() override { peak_.store(live_.load()); }

 private:
  struct Header {
    c10::DataPtr inner;  // owns the block this header sits in
    int64_t bytes;
    const CountingCpuAllocator* owner;
  };
  // Keeps the data at the inner allocator's alignment (c10's is 64 bytes).
  static constexpr size_t kHeaderBytes = 64;
  static_assert(sizeof(Header) <= kHeaderBytes);

  static void Release(void* data) {
    auto* header = reinterpret_cast<Header*>(static_cast<char*>(data) - kHeaderBytes);
    header->owner->live_.fetch_sub(header->bytes);
    c10::DataPtr block = std::move(header->inner);
    header->~Header();
  }  // `block` frees the memory here

  c10::Allocator* inner_;
  mutable std::atomic<int64_t> live_{0};
  mutable std::atomic<int64_t> peak_{0};
};

}  // namespace

TensorMemory* TensorMemory::Install() {
  // Never destroyed: a tensor freed at exit still calls back into it.
  static CountingCpuAllocator* const counting = [] {
    auto* allocator = new CountingCpuAllocator(c10::GetCPUAllocator());
    c10::SetCPUAllocator(allocator, /*priority=*/100);
    return allocator;
  }();
  return c10::GetCPUAllocator() == counting ? counting : nullptr;
}

}  // namespace ergobench

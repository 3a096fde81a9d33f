#include "runner/dist/gloo_communicator.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/math.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

#include "base/units.h"
#include "runner/dist/tcp_store.h"

namespace ergobench {
namespace {

// Calls fn with a value of the C++ type gloo reduces for `dtype`.
template <typename Fn>
void WithElementType(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::kFloat32: return fn(float{});
    case DType::kFloat64: return fn(double{});
    case DType::kFloat16: return fn(gloo::float16{});
    case DType::kInt64: return fn(int64_t{});
  }
}

template <typename T>
gloo::AllreduceOptions::Func ReduceFunction(ReduceOp op) {
  using Fn = void (*)(void*, const void*, const void*, size_t);
  switch (op) {
    case ReduceOp::kSum: return static_cast<Fn>(&gloo::sum<T>);
    case ReduceOp::kMax: return static_cast<Fn>(&gloo::max<T>);
    case ReduceOp::kMin: return static_cast<Fn>(&gloo::min<T>);
  }
  return static_cast<Fn>(&gloo::sum<T>);
}

// Gloo's own collectives use slot prefixes 0x01-0x08; ours stays clear of them.
constexpr uint8_t kReduceScatterSlotPrefix = 0x40;

// Gloo's collectives called directly on the caller's thread. c10d's ProcessGroupGloo, which
// this used before, hands every collective to a worker thread and wakes the caller through a
// future: at 1 MiB on two ranks that cost 5-6x the raw gloo loop (bench/allreduce_overhead).
// c10d remains for the rendezvous: its TCPStore and the device for the rank's address.
class GlooCommunicator : public Communicator {
 public:
  GlooCommunicator(c10::intrusive_ptr<c10d::TCPStore> store, std::shared_ptr<gloo::rendezvous::Context> context,
                   int rank, int world_size)
      : store_(std::move(store)), context_(std::move(context)), rank_(rank), world_size_(world_size) {}

  int rank() const override { return rank_; }
  int world_size() const override { return world_size_; }
  const char* backend() const override { return "gloo"; }
  bool Supports(DType) const override { return true; }

  Status AllReduce(void* data, size_t count, DType dtype, ReduceOp op) override {
    return Run("allreduce", [&] {
      gloo::AllreduceOptions options(context_);
      options.setTag(NextTag());
      WithElementType(dtype, [&](auto element) {
        using T = decltype(element);
        options.setOutput(static_cast<T*>(data), count);
        options.setReduceFunction(ReduceFunction<T>(op));
      });
      gloo::allreduce(options);
    });
  }

  // Debian's gloo has no reduce-scatter on plain buffers (only an old-style halving-doubling
  // class that allocates on every construction), so this is a ring on gloo's unbound buffers:
  // in step s each rank sends block rank-s-1 to its right and adds block rank-s-2 from its
  // left into its own copy; after k-1 steps block `rank` holds every rank's contribution.
  Status ReduceScatter(void* data, size_t count, DType dtype, ReduceOp op) override {
    if (world_size_ == 1 || count == 0) return Status::Ok();
    return Run("reduce-scatter", [&] {
      const size_t block = count * DTypeSize(dtype);
      auto* bytes = static_cast<std::byte*>(data);
      incoming_.resize(block);
      auto outgoing = context_->createUnboundBuffer(data, block * world_size_);
      auto incoming = context_->createUnboundBuffer(incoming_.data(), block);
      const uint64_t slot = gloo::Slot::build(kReduceScatterSlotPrefix, NextTag());
      const int k = world_size_;
      for (int step = 0; step < k - 1; ++step) {
        const size_t send_block = static_cast<size_t>((rank_ - step - 1 + 2 * k) % k);
        const size_t add_block = static_cast<size_t>((rank_ - step - 2 + 2 * k) % k);
        outgoing->send((rank_ + 1) % k, slot, send_block * block, block);
        incoming->recv((rank_ + k - 1) % k, slot, 0, block);
        Wait(incoming->waitRecv(context_->getTimeout()), "receiving a block");
        std::byte* sum = bytes + add_block * block;
        WithElementType(dtype, [&](auto element) { ReduceFunction<decltype(element)>(op)(sum, sum, incoming_.data(), count); });
        Wait(outgoing->waitSend(context_->getTimeout()), "sending a block");
      }
    });
  }

  Status AllGather(void* data, size_t count, DType dtype) override {
    return Run("all-gather", [&] {
      gloo::AllgatherOptions options(context_);
      options.setTag(NextTag());
      // Without an input gloo gathers in place: this rank's block is already where it belongs.
      WithElementType(dtype, [&](auto element) {
        options.setOutput(static_cast<decltype(element)*>(data), count * static_cast<size_t>(world_size_));
      });
      gloo::allgather(options);
    });
  }

  Status Broadcast(void* data, size_t count, DType dtype, int root) override {
    return Run("broadcast", [&] {
      gloo::BroadcastOptions options(context_);
      options.setTag(NextTag());
      options.setRoot(root);
      WithElementType(dtype, [&](auto element) { options.setOutput(static_cast<decltype(element)*>(data), count); });
      gloo::broadcast(options);
    });
  }

  // In place: with no input, gloo reduces the output buffers.
  Status Reduce(void* data, size_t count, DType dtype, ReduceOp op, int root) override {
    return Run("reduce", [&] {
      gloo::ReduceOptions options(context_);
      options.setTag(NextTag());
      options.setRoot(root);
      WithElementType(dtype, [&](auto element) {
        using T = decltype(element);
        options.setOutput(static_cast<T*>(data), count);
        options.setReduceFunction(ReduceFunction<T>(op));
      });
      gloo::reduce(options);
    });
  }

  Status AllToAll(const void* send, void* receive, size_t count, DType dtype) override {
    return Run("alltoall", [&] {
      gloo::AlltoallOptions options(context_);
      options.setTag(NextTag());
      const size_t elements = count * static_cast<size_t>(world_size_);
      WithElementType(dtype, [&](auto element) {
        using T = decltype(element);
        // Gloo's buffers take non-const pointers; the send buffer is only read.
        options.setInput(static_cast<T*>(const_cast<void*>(send)), elements);
        options.setOutput(static_cast<T*>(receive), elements);
      });
      gloo::alltoall(options);
    });
  }

  Status Barrier() override {
    return Run("barrier", [&] {
      gloo::BarrierOptions options(context_);
      options.setTag(NextTag());
      gloo::barrier(options);
    });
  }

 private:
  // Every rank calls the same collectives in the same order, so counting them gives each the
  // same tag on every rank.
  uint32_t NextTag() { return tag_++; }

  static void Wait(bool completed, const char* what) {
    if (!completed) throw std::runtime_error(std::string(what) + " was aborted or timed out");
  }

  template <typename Fn>
  Status Run(const char* what, Fn fn) {
    try {
      fn();
      return Status::Ok();
    } catch (const std::exception& e) {
      return Status::Unavailable(std::string("gloo ") + what + " failed: " + FirstLine(e.what()));
    }
  }

  // Rank 0 serves the store: it must outlive every rank's rendezvous, as it did inside c10d's
  // process group, or a slower rank's connect is reset.
  c10::intrusive_ptr<c10d::TCPStore> store_;
  std::shared_ptr<gloo::rendezvous::Context> context_;
  int rank_;
  int world_size_;
  uint32_t tag_ = 0;
  std::vector<std::byte> incoming_;  // the reduce-scatter's receive block, kept between calls
};

}  // namespace

StatusOr<std::unique_ptr<Communicator>> ConnectGloo(const RendezvousOptions& options) {
  const std::string master = options.master_addr + ":" + std::to_string(options.master_port);
  ASSIGN_OR_RETURN(c10::intrusive_ptr<c10d::TCPStore> store, ConnectStore(options));
  try {
    c10d::ProcessGroupGloo::GlooStore gloo_store(store);
    gloo::rendezvous::PrefixStore prefixed("ergobench", gloo_store);
    auto context = std::make_shared<gloo::rendezvous::Context>(options.rank, options.world_size);
    context->setTimeout(options.collective_timeout);
    std::shared_ptr<gloo::transport::Device> device =
        c10d::ProcessGroupGloo::createDeviceForHostname(options.bind_address);
    context->connectFullMesh(prefixed, device);
    return std::unique_ptr<Communicator>(
        std::make_unique<GlooCommunicator>(store, std::move(context), options.rank, options.world_size));
  } catch (const std::exception& e) {
    return Status::Unavailable("gloo context on " + options.bind_address + " (master " + master +
                               ") failed: " + FirstLine(e.what()));
  }
}

}  // namespace ergobench

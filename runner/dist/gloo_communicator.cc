#include "runner/dist/gloo_communicator.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include <ATen/ATen.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "base/units.h"

namespace ergobench {
namespace {

at::ScalarType ToScalarType(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return at::kFloat;
    case DType::kFloat64: return at::kDouble;
    case DType::kFloat16: return at::kHalf;
    case DType::kInt64: return at::kLong;
  }
  return at::kFloat;
}

c10d::ReduceOp ToReduceOp(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return c10d::ReduceOp::SUM;
    case ReduceOp::kMax: return c10d::ReduceOp::MAX;
    case ReduceOp::kMin: return c10d::ReduceOp::MIN;
  }
  return c10d::ReduceOp::SUM;
}

// c10d reports through exceptions whose first line is the message and the rest a C++
// backtrace; users need the first line.
std::string FirstLine(const char* what) {
  std::string text(what);
  return text.substr(0, text.find('\n'));
}

class GlooCommunicator : public Communicator {
 public:
  GlooCommunicator(c10::intrusive_ptr<c10d::ProcessGroupGloo> group, int rank, int world_size)
      : group_(std::move(group)), rank_(rank), world_size_(world_size) {}

  int rank() const override { return rank_; }
  int world_size() const override { return world_size_; }
  const char* backend() const override { return "gloo"; }
  bool Supports(DType) const override { return true; }

  Status AllReduce(void* data, size_t count, DType dtype, ReduceOp op) override {
    return Run("allreduce", [&] {
      std::vector<at::Tensor> tensors{Wrap(data, count, dtype)};
      c10d::AllreduceOptions options;
      options.reduceOp = ToReduceOp(op);
      group_->allreduce(tensors, options)->wait();
    });
  }

  Status Broadcast(void* data, size_t count, DType dtype, int root) override {
    return Run("broadcast", [&] {
      std::vector<at::Tensor> tensors{Wrap(data, count, dtype)};
      c10d::BroadcastOptions options;
      options.rootRank = root;
      group_->broadcast(tensors, options)->wait();
    });
  }

  Status Barrier() override {
    return Run("barrier", [&] { group_->barrier()->wait(); });
  }

 private:
  static at::Tensor Wrap(void* data, size_t count, DType dtype) {
    return at::from_blob(data, {static_cast<int64_t>(count)}, at::TensorOptions().dtype(ToScalarType(dtype)));
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

  c10::intrusive_ptr<c10d::ProcessGroupGloo> group_;
  int rank_;
  int world_size_;
};

// The store's client gives up at once on some errors a cluster makes for a few seconds: a
// restarted rank 0's name resolves to nothing yet, or to its old address (no route to host).
// Other ranks try again, a second apart, until the rendezvous deadline.
StatusOr<c10::intrusive_ptr<c10d::TCPStore>> ConnectStore(const RendezvousOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + options.timeout;
  c10d::TCPStoreOptions store_options;
  store_options.port = static_cast<uint16_t>(options.master_port);
  store_options.isServer = options.rank == 0;
  store_options.numWorkers = options.world_size;
  store_options.waitWorkers = true;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    store_options.timeout = std::max(left, std::chrono::milliseconds(1));
    try {
      return c10::make_intrusive<c10d::TCPStore>(options.master_addr, store_options);
    } catch (const std::exception& e) {
      if (options.rank == 0 || Clock::now() + std::chrono::seconds(1) >= deadline) {
        return Status::DeadlineExceeded("rendezvous with MASTER_ADDR:MASTER_PORT=" + options.master_addr + ":" +
                                        std::to_string(options.master_port) + " failed within " +
                                        FormatSeconds(options.timeout.count() / 1000.0) + ": " + FirstLine(e.what()));
      }
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

}  // namespace

StatusOr<std::unique_ptr<Communicator>> ConnectGloo(const RendezvousOptions& options) {
  const std::string master = options.master_addr + ":" + std::to_string(options.master_port);
  ASSIGN_OR_RETURN(c10::intrusive_ptr<c10d::TCPStore> store, ConnectStore(options));
  try {
    auto group_options = c10d::ProcessGroupGloo::Options::create(options.collective_timeout);
    group_options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(options.bind_address));
    group_options->threads = 1;
    auto group = c10::make_intrusive<c10d::ProcessGroupGloo>(store, options.rank, options.world_size, group_options);
    return std::unique_ptr<Communicator>(
        std::make_unique<GlooCommunicator>(std::move(group), options.rank, options.world_size));
  } catch (const std::exception& e) {
    return Status::Unavailable("gloo process group on " + options.bind_address + " (master " + master +
                               ") failed: " + FirstLine(e.what()));
  }
}

}  // namespace ergobench

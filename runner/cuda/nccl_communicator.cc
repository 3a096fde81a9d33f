#include "runner/cuda/nccl_communicator.h"

#include <cstring>
#include <thread>

#include "base/units.h"

namespace ergobench {
namespace {

using Clock = std::chrono::steady_clock;

ncclDataType_t NcclType(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return ncclFloat32;
    case DType::kFloat64: return ncclFloat64;
    case DType::kFloat16: return ncclFloat16;
    case DType::kInt64: return ncclInt64;
  }
  return ncclFloat32;
}

ncclRedOp_t NcclOp(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return ncclSum;
    case ReduceOp::kMax: return ncclMax;
    case ReduceOp::kMin: return ncclMin;
  }
  return ncclSum;
}

// GPU memory of the communicator's device.
class DeviceBuffer : public CollectiveBuffer {
 public:
  DeviceBuffer(DeviceRuntime& device, void* data, size_t bytes) : device_(device), data_(data), bytes_(bytes) {}
  ~DeviceBuffer() override { device_.Free(data_); }
  void* data() override { return data_; }
  size_t bytes() const override { return bytes_; }
  Status CopyFromHost(const void* source, size_t bytes) override {
    if (bytes > bytes_) return Status::InvalidArgument("copy of " + std::to_string(bytes) + " bytes into " + std::to_string(bytes_));
    return device_.CopyToDevice(data_, source, bytes);
  }
  Status CopyToHost(void* destination, size_t bytes) const override {
    if (bytes > bytes_) return Status::InvalidArgument("copy of " + std::to_string(bytes) + " bytes out of " + std::to_string(bytes_));
    return device_.CopyToHost(destination, data_, bytes);
  }

 private:
  DeviceRuntime& device_;
  void* data_;
  size_t bytes_;
};

class NcclCommunicator : public Communicator {
 public:
  NcclCommunicator(std::shared_ptr<NcclLibrary> nccl, std::unique_ptr<DeviceRuntime> device, ncclComm_t comm,
                   const NcclRendezvous& rendezvous)
      : nccl_(std::move(nccl)),
        device_(std::move(device)),
        comm_(comm),
        rank_(rendezvous.rank),
        world_size_(rendezvous.world_size),
        timeout_(rendezvous.collective_timeout) {}

  ~NcclCommunicator() override {
    if (scratch_ != nullptr) device_->Free(scratch_);
    if (comm_ != nullptr) nccl_->CommDestroy(comm_);
  }

  int rank() const override { return rank_; }
  int world_size() const override { return world_size_; }
  const char* backend() const override { return "nccl"; }
  bool Supports(DType) const override { return true; }
  // The CUDA runtime's current device is per thread; collectives stay on the connecting one.
  bool CallableFromAnotherThread() const override { return false; }
  std::string LibraryVersion() const override { return "nccl " + nccl_->version() + " on " + device_->Describe(); }

  Status AllReduce(void* data, size_t count, DType dtype, ReduceOp op) override {
    return Collective("ncclAllReduce", data, count * DTypeSize(dtype), [&](std::byte* on_device) {
      return nccl_->AllReduce(on_device, on_device, count, NcclType(dtype), NcclOp(op), comm_, Stream());
    });
  }

  // In place as NCCL defines it: this rank's block is the receive buffer inside the send buffer.
  Status ReduceScatter(void* data, size_t count, DType dtype, ReduceOp op) override {
    const size_t block = count * DTypeSize(dtype);
    return Collective("ncclReduceScatter", data, block * world_size_, [&](std::byte* on_device) {
      return nccl_->ReduceScatter(on_device, on_device + block * rank_, count, NcclType(dtype), NcclOp(op), comm_,
                                  Stream());
    });
  }

  Status AllGather(void* data, size_t count, DType dtype) override {
    const size_t block = count * DTypeSize(dtype);
    return Collective("ncclAllGather", data, block * world_size_, [&](std::byte* on_device) {
      return nccl_->AllGather(on_device + block * rank_, on_device, count, NcclType(dtype), comm_, Stream());
    });
  }

  Status Broadcast(void* data, size_t count, DType dtype, int root) override {
    if (root < 0 || root >= world_size_) return Status::InvalidArgument("broadcast root " + std::to_string(root));
    return Collective("ncclBroadcast", data, count * DTypeSize(dtype), [&](std::byte* on_device) {
      return nccl_->Broadcast(on_device, on_device, count, NcclType(dtype), root, comm_, Stream());
    });
  }

  Status Reduce(void* data, size_t count, DType dtype, ReduceOp op, int root) override {
    if (root < 0 || root >= world_size_) return Status::InvalidArgument("reduce root " + std::to_string(root));
    return Collective("ncclReduce", data, count * DTypeSize(dtype), [&](std::byte* on_device) {
      return nccl_->Reduce(on_device, on_device, count, NcclType(dtype), NcclOp(op), root, comm_, Stream());
    });
  }

  // NCCL has no all-to-all of its own: a send and a receive with every rank, grouped so that
  // NCCL runs them at once (as nccl-tests' alltoall does).
  Status AllToAll(const void* send, void* receive, size_t count, DType dtype) override {
    if (comm_ == nullptr) return Status::FailedPrecondition("alltoall: the communicator was aborted");
    const size_t block = count * DTypeSize(dtype);
    const size_t bytes = block * static_cast<size_t>(world_size_);
    const bool staged = !device_->IsDeviceMemory(send) || !device_->IsDeviceMemory(receive);
    const auto* in = static_cast<const std::byte*>(send);
    auto* out = static_cast<std::byte*>(receive);
    if (staged) {
      ASSIGN_OR_RETURN(std::byte* scratch, Scratch(2 * bytes));
      RETURN_IF_ERROR(device_->CopyToDevice(scratch, send, bytes));
      in = scratch;
      out = scratch + bytes;
    }
    ncclResult_t result = nccl_->GroupStart();
    for (int peer = 0; peer < world_size_ && result == ncclSuccess; ++peer) {
      result = nccl_->Send(in + peer * block, count, NcclType(dtype), peer, comm_, Stream());
      if (result == ncclSuccess) result = nccl_->Recv(out + peer * block, count, NcclType(dtype), peer, comm_, Stream());
    }
    const ncclResult_t ended = nccl_->GroupEnd();  // a group once started is always ended
    if (result == ncclSuccess) result = ended;
    if (result != ncclSuccess) return Status::Unavailable(nccl_->Error("alltoall (ncclSend/ncclRecv)", result, comm_));
    RETURN_IF_ERROR(Wait("alltoall"));
    if (staged) RETURN_IF_ERROR(device_->CopyToHost(receive, out, bytes));
    return Status::Ok();
  }

  // NCCL has no barrier: a one-element all-reduce that every rank must join, on device memory
  // so that it copies nothing.
  Status Barrier() override {
    ASSIGN_OR_RETURN(std::byte* token, Scratch(sizeof(float)));
    return Collective("ncclAllReduce (barrier)", token, sizeof(float), [&](std::byte* on_device) {
      return nccl_->AllReduce(on_device, on_device, 1, ncclFloat32, ncclSum, comm_, Stream());
    });
  }

  StatusOr<std::unique_ptr<CollectiveBuffer>> AllocateBuffer(size_t bytes) override {
    ASSIGN_OR_RETURN(void* data, device_->Allocate(bytes));
    return std::unique_ptr<CollectiveBuffer>(std::make_unique<DeviceBuffer>(*device_, data, bytes));
  }

  // Peers blocked in a collective with this rank see NCCL's connections close and fail.
  void AbortJob(int) override {
    if (comm_ == nullptr) return;
    nccl_->CommAbort(comm_);
    comm_ = nullptr;
  }

 private:
  cudaStream_t Stream() { return static_cast<cudaStream_t>(device_->stream()); }

  // Runs `launch` on device memory holding the `bytes` at `data`: `data` itself when it is the
  // device's, else a staging buffer that the host bytes are copied into and back out of.
  template <typename Launch>
  Status Collective(const char* call, void* data, size_t bytes, Launch launch) {
    if (comm_ == nullptr) return Status::FailedPrecondition(std::string(call) + ": the communicator was aborted");
    const bool staged = !device_->IsDeviceMemory(data);
    std::byte* on_device = static_cast<std::byte*>(data);
    if (staged) {
      ASSIGN_OR_RETURN(on_device, Scratch(bytes));
      RETURN_IF_ERROR(device_->CopyToDevice(on_device, data, bytes));
    }
    if (ncclResult_t r = launch(on_device); r != ncclSuccess) return Status::Unavailable(nccl_->Error(call, r, comm_));
    RETURN_IF_ERROR(Wait(call));
    if (staged) RETURN_IF_ERROR(device_->CopyToHost(data, on_device, bytes));
    return Status::Ok();
  }

  // Until the stream has finished the collective. A peer that died leaves it running forever:
  // NCCL's asynchronous error or the collective timeout ends it, aborting the communicator.
  Status Wait(const char* call) {
    const auto deadline = Clock::now() + timeout_;
    for (int polls = 0;; ++polls) {
      ASSIGN_OR_RETURN(const bool done, device_->StreamDone());
      if (done) return Status::Ok();
      if (polls % 1024 == 1023) {
        ncclResult_t async = ncclSuccess;
        nccl_->CommGetAsyncError(comm_, &async);
        if (async != ncclSuccess && async != ncclInProgress) {
          const std::string error = nccl_->Error(call, async, comm_);
          AbortJob(0);
          return Status::Unavailable(error);
        }
        if (Clock::now() > deadline) {
          AbortJob(0);
          return Status::DeadlineExceeded(std::string(call) + " did not finish within " +
                                          FormatSeconds(std::chrono::duration<double>(timeout_).count()) +
                                          " (spec's collective timeout); the communicator was aborted");
        }
      }
      std::this_thread::yield();
    }
  }

  // Device memory for staged host bytes, grown as needed and kept.
  StatusOr<std::byte*> Scratch(size_t bytes) {
    if (bytes > scratch_bytes_ || scratch_ == nullptr) {
      if (scratch_ != nullptr) device_->Free(scratch_);
      scratch_ = nullptr;
      ASSIGN_OR_RETURN(scratch_, device_->Allocate(std::max<size_t>(bytes, 4096)));
      scratch_bytes_ = std::max<size_t>(bytes, 4096);
    }
    return static_cast<std::byte*>(scratch_);
  }

  std::shared_ptr<NcclLibrary> nccl_;
  std::unique_ptr<DeviceRuntime> device_;
  ncclComm_t comm_;
  int rank_;
  int world_size_;
  std::chrono::milliseconds timeout_;
  void* scratch_ = nullptr;
  size_t scratch_bytes_ = 0;
};

}  // namespace

StatusOr<std::unique_ptr<Communicator>> ConnectNccl(std::shared_ptr<NcclLibrary> nccl,
                                                    std::unique_ptr<DeviceRuntime> device,
                                                    const NcclRendezvous& rendezvous) {
  ncclUniqueId id{};
  if (rendezvous.rank == 0) {
    if (ncclResult_t r = nccl->GetUniqueId(&id); r != ncclSuccess) {
      return Status::Unavailable("backend nccl: " + nccl->Error("ncclGetUniqueId", r));
    }
    if (rendezvous.world_size > 1) RETURN_IF_ERROR(rendezvous.publish(std::string(id.internal, sizeof id.internal)));
  } else {
    ASSIGN_OR_RETURN(const std::string bytes, rendezvous.fetch());
    if (bytes.size() != sizeof id.internal) {
      return Status::Internal("backend nccl: rank 0 published a unique id of " + std::to_string(bytes.size()) +
                              " bytes, not " + std::to_string(sizeof id.internal));
    }
    std::memcpy(id.internal, bytes.data(), bytes.size());
  }
  ncclComm_t comm = nullptr;
  if (ncclResult_t r = nccl->CommInitRank(&comm, rendezvous.world_size, id, rendezvous.rank); r != ncclSuccess) {
    return Status::Unavailable("backend nccl: rank " + std::to_string(rendezvous.rank) + " of " +
                               std::to_string(rendezvous.world_size) + ": " + nccl->Error("ncclCommInitRank", r));
  }
  return std::unique_ptr<Communicator>(std::make_unique<NcclCommunicator>(std::move(nccl), std::move(device), comm, rendezvous));
}

}  // namespace ergobench

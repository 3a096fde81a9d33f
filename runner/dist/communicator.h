// Communicator: the collectives a runner needs, behind one interface so that tasks do not
// know which library moves their bytes. Implementations: gloo (c10d ProcessGroupGloo over
// a TCPStore rendezvous), mpi (OpenMPI) and nccl (GPUs, runner/cuda). Buffers are raw
// pointers, so this header stays free of torch: host memory for gloo and mpi; for nccl the
// GPU's memory, or host memory that it stages through the GPU (small control messages). Every
// call returns only once the operation has completed, which is what the communication timers
// measure.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "base/status.h"

namespace ergobench {

enum class DType { kFloat32, kFloat64, kFloat16, kInt64 };
size_t DTypeSize(DType dtype);
const char* DTypeName(DType dtype);
StatusOr<DType> ParseDType(const std::string& name);

enum class ReduceOp { kSum, kMax, kMin };

// Memory where a communicator moves bytes fastest (the GPU's, for nccl), filled and read
// through copies from and to the host.
class CollectiveBuffer {
 public:
  virtual ~CollectiveBuffer() = default;
  virtual void* data() = 0;
  virtual size_t bytes() const = 0;
  virtual Status CopyFromHost(const void* source, size_t bytes) = 0;
  virtual Status CopyToHost(void* destination, size_t bytes) const = 0;
};

// Host memory, for the backends that reduce in it.
class HostBuffer : public CollectiveBuffer {
 public:
  // Unavailable, naming the size, when the memory is not there.
  static StatusOr<std::unique_ptr<CollectiveBuffer>> Allocate(size_t bytes);
  void* data() override { return data_.get(); }
  size_t bytes() const override { return bytes_; }
  Status CopyFromHost(const void* source, size_t bytes) override;
  Status CopyToHost(void* destination, size_t bytes) const override;

 private:
  HostBuffer(std::unique_ptr<std::byte[]> data, size_t bytes) : data_(std::move(data)), bytes_(bytes) {}
  std::unique_ptr<std::byte[]> data_;
  size_t bytes_;
};

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  virtual const char* backend() const = 0;
  virtual bool Supports(DType dtype) const = 0;
  // Whether collectives may be called from a thread other than the one that connected, one
  // thread at a time (overlapped gradient sync runs them on a thread of its own).
  virtual bool CallableFromAnotherThread() const { return true; }

  // Reduces `count` elements at `data` in place across all ranks.
  virtual Status AllReduce(void* data, size_t count, DType dtype, ReduceOp op) = 0;
  // The sharded strategy's halves of an all-reduce, on a buffer of `count * world_size()`
  // elements in blocks of `count`, block i at data + i * count:
  // ReduceScatter leaves this rank's block reduced across all ranks (the others unspecified);
  // AllGather copies every rank's block to the same place on every rank.
  virtual Status ReduceScatter(void* data, size_t count, DType dtype, ReduceOp op) = 0;
  virtual Status AllGather(void* data, size_t count, DType dtype) = 0;
  // Copies `count` elements at `data` from `root` to every rank.
  virtual Status Broadcast(void* data, size_t count, DType dtype, int root) = 0;
  // Reduces `count` elements at `data` across all ranks into `root`'s `data`, in place; the
  // other ranks' buffers are left unspecified.
  virtual Status Reduce(void* data, size_t count, DType dtype, ReduceOp op, int root) = 0;
  // The personalised exchange: `send` and `receive` each hold world_size() blocks of `count`
  // elements, and block j of this rank's `send` becomes block (this rank) of rank j's `receive`.
  virtual Status AllToAll(const void* send, void* receive, size_t count, DType dtype) = 0;
  virtual Status Barrier() = 0;

  // A buffer of `bytes` where this backend's collectives are fastest: host memory unless the
  // backend says otherwise.
  virtual StatusOr<std::unique_ptr<CollectiveBuffer>> AllocateBuffer(size_t bytes) {
    return HostBuffer::Allocate(bytes);
  }
  // The collective library and its version ("nccl 2.28.9"); empty where the backend's name says it.
  virtual std::string LibraryVersion() const { return ""; }

  // Ends every rank of the job after this one failed outside a collective. MPI needs it:
  // MPI_Finalize waits for peers that are blocked in a collective with no timeout. Gloo
  // peers see the connection close and fail on their own, so there it does nothing.
  virtual void AbortJob(int /*exit_code*/) {}
};

// Where ranks meet: the environment of a Kubeflow-style launch (RANK, WORLD_SIZE,
// MASTER_ADDR, MASTER_PORT) plus the rank's own address and the time limits.
struct RendezvousOptions {
  int rank = 0;
  int world_size = 1;
  std::string master_addr;
  int master_port = 0;
  // The address this rank's transport binds: its own, never the master's.
  std::string bind_address;
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};
  std::chrono::milliseconds collective_timeout{std::chrono::minutes(30)};
};

}  // namespace ergobench

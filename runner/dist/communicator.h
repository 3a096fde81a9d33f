// Communicator: the collectives a runner needs, behind one interface so that tasks do not
// know which library moves their bytes. Implementations: gloo (c10d ProcessGroupGloo over
// a TCPStore rendezvous) and mpi (OpenMPI). Buffers are raw host memory, so this header
// stays free of torch; every call returns only once the operation has completed, which is
// what the communication timers measure.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "base/status.h"

namespace ergobench {

enum class DType { kFloat32, kFloat64, kFloat16, kInt64 };
size_t DTypeSize(DType dtype);
const char* DTypeName(DType dtype);
StatusOr<DType> ParseDType(const std::string& name);

enum class ReduceOp { kSum, kMax, kMin };

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
  virtual Status Barrier() = 0;

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

// One collective of task 0a on the backend's own buffers (the GPU's, for nccl): this rank's
// input made, the operation run, its result checked, the host images of device buffers kept
// in mirror copies. All-reduce checks and refills in one pass at memcpy speed
// (VerifyAndRefill); the other collectives refill before each operation.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "base/status.h"
#include "runner/dist/communicator.h"
#include "runner/tasks/sweep_collectives.h"

namespace ergobench {

// A collective buffer and its host image: the buffer itself when it is host memory, else a
// mirror copied to and from it.
class SweepBuffer {
 public:
  explicit SweepBuffer(std::unique_ptr<CollectiveBuffer> buffer);
  void* device() { return buffer_->data(); }
  void* host() { return on_host_ ? buffer_->data() : mirror_.data(); }
  Status ToHost(size_t bytes);
  Status FromHost(size_t bytes);

 private:
  std::unique_ptr<CollectiveBuffer> buffer_;
  bool on_host_;
  std::vector<std::byte> mirror_;
};

class SweepOperation {
 public:
  // Buffers for up to `elements` (each of alltoall's two); Unavailable where they do not fit.
  static StatusOr<SweepOperation> Create(Communicator& comm, Collective collective, DType dtype, int64_t elements);

  // This rank's input for an operation of `count` a call (sweep_collectives.h).
  Status Prepare(int64_t count);
  Status Run(int64_t count);
  // Internal, naming the collective, rank and element, when the result is wrong.
  Status Check(int64_t count);

 private:
  SweepOperation(Communicator& comm, Collective collective, DType dtype, SweepBuffer data,
                 std::optional<SweepBuffer> receive);
  size_t Bytes(int64_t count) const;
  Status Wrong(const void* result, int64_t count, int64_t bad) const;

  Communicator& comm_;
  Collective collective_;
  DType dtype_;
  SweepBuffer data_;                    // the input, and the result of all but alltoall
  std::optional<SweepBuffer> receive_;  // alltoall's result
  int64_t refilled_count_ = -1;         // all_reduce: the input of this count is in place, refilled by each check
};

}  // namespace ergobench

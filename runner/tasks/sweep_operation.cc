#include "runner/tasks/sweep_operation.h"

#include <cstdio>

#include "runner/tasks/allreduce_sweep.h"

namespace ergobench {

SweepBuffer::SweepBuffer(std::unique_ptr<CollectiveBuffer> buffer)
    : buffer_(std::move(buffer)), on_host_(dynamic_cast<HostBuffer*>(buffer_.get()) != nullptr) {
  if (!on_host_) mirror_.resize(buffer_->bytes());
}

Status SweepBuffer::ToHost(size_t bytes) { return on_host_ ? Status::Ok() : buffer_->CopyToHost(mirror_.data(), bytes); }

Status SweepBuffer::FromHost(size_t bytes) {
  return on_host_ ? Status::Ok() : buffer_->CopyFromHost(mirror_.data(), bytes);
}

namespace {

StatusOr<SweepBuffer> Allocate(Communicator& comm, size_t bytes) {
  ASSIGN_OR_RETURN(std::unique_ptr<CollectiveBuffer> buffer, comm.AllocateBuffer(bytes));
  return SweepBuffer(std::move(buffer));
}

}  // namespace

StatusOr<SweepOperation> SweepOperation::Create(Communicator& comm, Collective collective, DType dtype,
                                                int64_t elements) {
  const size_t bytes = static_cast<size_t>(elements) * DTypeSize(dtype);
  ASSIGN_OR_RETURN(SweepBuffer data, Allocate(comm, bytes));
  std::optional<SweepBuffer> receive;
  if (collective == Collective::kAllToAll) {
    ASSIGN_OR_RETURN(receive, Allocate(comm, bytes));
  }
  return SweepOperation(comm, collective, dtype, std::move(data), std::move(receive));
}

SweepOperation::SweepOperation(Communicator& comm, Collective collective, DType dtype, SweepBuffer data,
                               std::optional<SweepBuffer> receive)
    : comm_(comm), collective_(collective), dtype_(dtype), data_(std::move(data)), receive_(std::move(receive)) {}

Status SweepOperation::Prepare(int64_t count) {
  if (collective_ == Collective::kAllReduce && refilled_count_ == count) return Status::Ok();
  FillCollectiveInput(collective_, data_.host(), count, dtype_, comm_.rank(), comm_.world_size());
  RETURN_IF_ERROR(data_.FromHost(Bytes(count)));
  if (receive_) {
    FillPoison(receive_->host(), BufferElements(collective_, count, comm_.world_size()), dtype_);
    RETURN_IF_ERROR(receive_->FromHost(Bytes(count)));
  }
  refilled_count_ = collective_ == Collective::kAllReduce ? count : -1;
  return Status::Ok();
}

Status SweepOperation::Run(int64_t count) {
  void* data = data_.device();
  const auto n = static_cast<size_t>(count);
  switch (collective_) {
    case Collective::kAllReduce: return comm_.AllReduce(data, n, dtype_, ReduceOp::kSum);
    case Collective::kAllGather: return comm_.AllGather(data, n, dtype_);
    case Collective::kReduceScatter: return comm_.ReduceScatter(data, n, dtype_, ReduceOp::kSum);
    case Collective::kBroadcast: return comm_.Broadcast(data, n, dtype_, kSweepRoot);
    case Collective::kReduce: return comm_.Reduce(data, n, dtype_, ReduceOp::kSum, kSweepRoot);
    case Collective::kAllToAll: return comm_.AllToAll(data, receive_->device(), n, dtype_);
  }
  return Status::Internal("unknown collective");
}

Status SweepOperation::Check(int64_t count) {
  SweepBuffer& result = receive_ ? *receive_ : data_;
  RETURN_IF_ERROR(result.ToHost(Bytes(count)));
  const int k = comm_.world_size();
  if (collective_ == Collective::kAllReduce) {
    const int64_t bad = VerifyAndRefill(result.host(), static_cast<size_t>(count), dtype_, k, comm_.rank());
    if (bad < 0) return result.FromHost(Bytes(count));
    refilled_count_ = -1;
    return Wrong(result.host(), count, bad);
  }
  const int64_t bad = CheckCollectiveResult(collective_, result.host(), count, dtype_, comm_.rank(), k);
  return bad < 0 ? Status::Ok() : Wrong(result.host(), count, bad);
}

size_t SweepOperation::Bytes(int64_t count) const {
  return static_cast<size_t>(BufferElements(collective_, count, comm_.world_size())) * DTypeSize(dtype_);
}

Status SweepOperation::Wrong(const void* result, int64_t count, int64_t bad) const {
  const int k = comm_.world_size();
  char message[320];
  std::snprintf(message, sizeof message,
                "wrong %s result on rank %d: %lld %s elements a call over %d ranks, element %lld is %g but must be %g",
                CollectiveName(collective_), comm_.rank(), static_cast<long long>(count), DTypeName(dtype_), k,
                static_cast<long long>(bad), ElementAsDouble(result, dtype_, static_cast<size_t>(bad)),
                ExpectedResult(collective_, bad, count, dtype_, comm_.rank(), k));
  return Status::Internal(message);
}

}  // namespace ergobench

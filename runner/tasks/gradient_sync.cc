#include "runner/tasks/gradient_sync.h"

#include "runner/dist/communicator.h"

namespace ergobench {

GradientBuffer::GradientBuffer(std::vector<torch::Tensor> params) : params_(std::move(params)) {
  int64_t total = 0;
  for (const torch::Tensor& p : params_) total += p.numel();
  flat_ = torch::zeros({total});
}

void GradientBuffer::Pack() {
  int64_t offset = 0;
  for (const torch::Tensor& p : params_) {
    torch::Tensor slice = flat_.slice(0, offset, offset + p.numel());
    p.grad().defined() ? slice.copy_(p.grad().reshape({-1})) : slice.zero_();
    offset += p.numel();
  }
}

void GradientBuffer::UnpackAveraged(int world_size) {
  flat_.div_(world_size);
  int64_t offset = 0;
  for (torch::Tensor& p : params_) {
    if (p.grad().defined()) p.mutable_grad().copy_(flat_.slice(0, offset, offset + p.numel()).view(p.sizes()));
    offset += p.numel();
  }
}

Status GradientSync::Synchronize(PhaseTimer& phases) {
  phases.Time(TrainingPhase::kOptimizer, [&] { buffer_.Pack(); });
  Status reduced = Status::Ok();
  phases.Time(TrainingPhase::kCommunication, [&] {
    reduced = comm_.AllReduce(buffer_.data(), buffer_.size(), DType::kFloat32, ReduceOp::kSum);
  });
  RETURN_IF_ERROR(reduced);
  phases.Time(TrainingPhase::kOptimizer, [&] { buffer_.UnpackAveraged(comm_.world_size()); });
  return Status::Ok();
}

Status BroadcastFromRankZero(Communicator& comm, std::vector<torch::Tensor> tensors) {
  torch::NoGradGuard no_grad;
  for (torch::Tensor& t : tensors) {
    if (t.scalar_type() != torch::kFloat && t.scalar_type() != torch::kLong) continue;
    torch::Tensor contiguous = t.contiguous();
    const DType dtype = t.scalar_type() == torch::kFloat ? DType::kFloat32 : DType::kInt64;
    RETURN_IF_ERROR(comm.Broadcast(contiguous.data_ptr(), static_cast<size_t>(contiguous.numel()), dtype, 0));
    if (!contiguous.is_same(t)) t.copy_(contiguous);
  }
  return Status::Ok();
}

}  // namespace ergobench

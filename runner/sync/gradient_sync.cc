#include "runner/sync/gradient_sync.h"

#include <cmath>

#include "runner/dist/communicator.h"
#include "runner/sync/overlapped_gradient_sync.h"
#include "runner/sync/sharded_gradient_sync.h"
#include "runner/train/memory_accounting.h"
#include "runner/train/recipe_reader.h"

namespace ergobench {
namespace {

// One all-reduce of every gradient after backward: the step waits for all of it.
class FlatGradientSync : public ReplicatedGradientSync {
 public:
  FlatGradientSync(Communicator& comm, ParameterGroups groups)
      : ReplicatedGradientSync(std::move(groups)), comm_(comm), buffer_(AllParameters()) {}

  void BeforeBackward(bool) override {}

  Status Synchronize(PhaseTimer& phases) override {
    phases.Time(TrainingPhase::kOptimizer, [&] { buffer_.Pack(); });
    Status reduced = Status::Ok();
    const double waited = phases.Time(TrainingPhase::kCommunication, [&] {
      reduced = comm_.AllReduce(buffer_.data(), buffer_.size(), DType::kFloat32, ReduceOp::kSum);
    });
    phases.AddCollectiveSeconds(waited);
    RETURN_IF_ERROR(reduced);
    phases.Time(TrainingPhase::kOptimizer, [&] { buffer_.UnpackAveraged(comm_.world_size()); });
    return Status::Ok();
  }

  int64_t GradientBytes() const override { return ModelGradientBytes() + buffer_.bytes(); }

 private:
  Communicator& comm_;
  GradientBuffer buffer_;
};

}  // namespace

GradientSyncOptions ReadGradientSyncOptions(RecipeReader& read) {
  GradientSyncOptions options;
  options.strategy = read.String("gradientSync");
  options.bucket_mib = read.Number("bucketMiB");
  options.zero_stage = static_cast<int>(read.Int("zeroStage"));
  return options;
}

StatusOr<std::unique_ptr<GradientSync>> MakeGradientSync(const GradientSyncOptions& options, Communicator& comm,
                                                         ParameterGroups groups, ParameterGroups blocks) {
  const std::string& strategy = options.strategy;
  if (strategy != "flat" && strategy != "overlap" && strategy != "sharded") {
    return Status::InvalidArgument("spec.hyperparameters.gradientSync: \"" + strategy +
                                   "\" is not one of flat, overlap, sharded");
  }
  if (strategy == "sharded" && (options.zero_stage < 1 || options.zero_stage > 3)) {
    return Status::InvalidArgument("spec.hyperparameters.zeroStage: " + std::to_string(options.zero_stage) +
                                   " is not 1 (optimizer state sharded), 2 (and gradients) or 3 (and parameters)");
  }
  if (strategy == "sharded" && options.zero_stage == 3 && blocks.empty()) {
    return Status::InvalidArgument("spec.hyperparameters.zeroStage: 3 gathers parameters block by block, which only "
                                   "task gpt's model does; use 1 or 2");
  }
  // Overlap and stages 2 and 3 run collectives on a thread of their own while backward computes.
  const bool on_another_thread = strategy == "overlap" || (strategy == "sharded" && options.zero_stage >= 2);
  if (on_another_thread && !comm.CallableFromAnotherThread()) {
    // MPI without MPI_THREAD_SERIALIZED; NCCL, whose CUDA device is per thread.
    return Status::FailedPrecondition("spec.hyperparameters.gradientSync: " + strategy +
                                      " runs collectives from a thread of its own, which backend " + comm.backend() +
                                      " does not allow here; use flat");
  }
  const auto bucket_bytes = static_cast<size_t>(options.bucket_mib * 1024 * 1024);
  if (strategy == "flat") return std::unique_ptr<GradientSync>(new FlatGradientSync(comm, std::move(groups)));
  if (strategy == "overlap") return MakeOverlappedGradientSync(comm, std::move(groups), bucket_bytes);
  return MakeShardedGradientSync(comm, std::move(groups), bucket_bytes, options.zero_stage, std::move(blocks));
}

Status GradientSync::ClipGradNorm(double max_norm) {
  ASSIGN_OR_RETURN(const double norm, GradNorm());
  const double coefficient = max_norm / (norm + 1e-6);  // torch's clip_grad_norm_
  if (coefficient < 1) ScaleGradients(coefficient);
  return Status::Ok();
}

std::vector<torch::Tensor> ReplicatedGradientSync::Gradients() const {
  std::vector<torch::Tensor> grads;
  for (const torch::Tensor& p : AllParameters()) {
    if (p.grad().defined()) grads.push_back(p.grad());
  }
  return grads;
}

// Every gradient's norm in one multi-tensor operation and one wait for the device, rather than
// one of each per parameter (a GPU's queue drained as many times a step); squares summed in
// double, as before.
StatusOr<double> ReplicatedGradientSync::GradNorm() {
  const std::vector<torch::Tensor> grads = Gradients();
  if (grads.empty()) return 0.0;
  return torch::stack(at::_foreach_norm(grads)).to(torch::kDouble).square().sum().sqrt().item<double>();
}

void ReplicatedGradientSync::ScaleGradients(double factor) {
  torch::NoGradGuard no_grad;
  const std::vector<torch::Tensor> grads = Gradients();
  if (!grads.empty()) at::_foreach_mul_(grads, at::Scalar(factor));
}

int64_t ReplicatedGradientSync::ParameterBytes() const { return TensorBytes(AllParameters()); }

int64_t ReplicatedGradientSync::ModelGradientBytes() const { return TensorBytes(Gradients()); }

std::vector<torch::Tensor> ReplicatedGradientSync::AllParameters() const {
  std::vector<torch::Tensor> all;
  for (const std::vector<torch::Tensor>& group : groups_) all.insert(all.end(), group.begin(), group.end());
  return all;
}

GradientBuffer::GradientBuffer(std::vector<torch::Tensor> params) : params_(std::move(params)) {
  int64_t total = 0;
  for (const torch::Tensor& p : params_) {
    offsets_.push_back(total);
    total += p.numel();
  }
  flat_ = torch::zeros({total}, torch::TensorOptions().device(params_.empty() ? torch::kCPU : params_.front().device()));
}

void GradientBuffer::Pack() {
  for (size_t i = 0; i < params_.size(); ++i) PackOne(i);
}

void GradientBuffer::PackOne(size_t index) {
  const torch::Tensor& p = params_[index];
  torch::Tensor slice = flat_.slice(0, offsets_[index], offsets_[index] + p.numel());
  p.grad().defined() ? slice.copy_(p.grad().reshape({-1})) : slice.zero_();
}

void GradientBuffer::UnpackAveraged(int world_size) {
  flat_.div_(world_size);
  for (size_t i = 0; i < params_.size(); ++i) {
    torch::Tensor& p = params_[i];
    if (p.grad().defined()) p.mutable_grad().copy_(flat_.slice(0, offsets_[i], offsets_[i] + p.numel()).view(p.sizes()));
  }
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

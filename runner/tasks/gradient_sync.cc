#include "runner/tasks/gradient_sync.h"

#include "runner/dist/communicator.h"
#include "runner/tasks/overlapped_gradient_sync.h"
#include "runner/tasks/recipe_reader.h"

namespace ergobench {
namespace {

// One all-reduce of every gradient after backward: the step waits for all of it.
class FlatGradientSync : public GradientSync {
 public:
  FlatGradientSync(Communicator& comm, std::vector<torch::Tensor> params) : comm_(comm), buffer_(std::move(params)) {}

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

 private:
  Communicator& comm_;
  GradientBuffer buffer_;
};

}  // namespace

GradientSyncOptions ReadGradientSyncOptions(RecipeReader& read) {
  GradientSyncOptions options;
  options.strategy = read.String("gradientSync");
  options.bucket_mib = read.Number("bucketMiB");
  return options;
}

StatusOr<std::unique_ptr<GradientSync>> MakeGradientSync(const GradientSyncOptions& options, Communicator& comm,
                                                         std::vector<torch::Tensor> params) {
  if (options.strategy == "flat") return std::unique_ptr<GradientSync>(new FlatGradientSync(comm, std::move(params)));
  if (options.strategy == "overlap") {
    if (!comm.CallableFromAnotherThread()) {
      return Status::FailedPrecondition(std::string("spec.hyperparameters.gradientSync: overlap all-reduces from a "
                                                    "thread of its own, which this ") +
                                        comm.backend() + " library does not allow (MPI_THREAD_SERIALIZED); use flat");
    }
    const auto bucket_bytes = static_cast<size_t>(options.bucket_mib * 1024 * 1024);
    return MakeOverlappedGradientSync(comm, std::move(params), bucket_bytes);
  }
  return Status::InvalidArgument("spec.hyperparameters.gradientSync: \"" + options.strategy +
                                 "\" is not one of flat, overlap");
}

GradientBuffer::GradientBuffer(std::vector<torch::Tensor> params) : params_(std::move(params)) {
  int64_t total = 0;
  for (const torch::Tensor& p : params_) {
    offsets_.push_back(total);
    total += p.numel();
  }
  flat_ = torch::zeros({total});
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

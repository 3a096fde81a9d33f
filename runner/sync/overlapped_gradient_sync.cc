#include "runner/sync/overlapped_gradient_sync.h"

#include <mutex>

#include "runner/dist/collective_worker.h"
#include "runner/dist/communicator.h"
#include "runner/sync/gradient_ready_hooks.h"
#include "runner/sync/in_order_launcher.h"

namespace ergobench {
namespace {

class OverlappedGradientSync : public ReplicatedGradientSync {
 public:
  OverlappedGradientSync(Communicator& comm, ParameterGroups groups, size_t bucket_bytes);

  void BeforeBackward(bool last) override {
    std::lock_guard<std::mutex> lock(mutex_);
    armed_ = last;
  }
  Status Synchronize(PhaseTimer& phases) override;
  int64_t GradientBytes() const override {
    int64_t bytes = ModelGradientBytes();
    for (const Bucket& bucket : buckets_) bytes += bucket.buffer.bytes();
    return bytes;
  }

 private:
  struct Bucket {
    std::vector<size_t> params;  // indices into params_, in the buffer's order
    GradientBuffer buffer;
  };
  struct Slot {
    size_t bucket = 0;
    size_t position = 0;  // in the bucket
    bool packed = false;
  };

  void OnGradientReady(size_t param);
  void LaunchBucket(size_t bucket);
  void PackWhatBackwardDidNot();
  void StartOver();

  Communicator& comm_;
  std::vector<torch::Tensor> params_;
  std::vector<Bucket> buckets_;
  std::vector<Slot> slots_;  // by parameter
  std::mutex mutex_;        // hooks may run on autograd's device threads
  bool armed_ = false;      // from the step's last backward until Synchronize
  InOrderLauncher launcher_{[this](size_t bucket) { LaunchBucket(bucket); }};
  GradientReadyHooks hooks_;
  CollectiveWorker worker_;  // declared last, destroyed first: its thread reads the buffers
};

OverlappedGradientSync::OverlappedGradientSync(Communicator& comm, ParameterGroups groups, size_t bucket_bytes)
    : ReplicatedGradientSync(std::move(groups)),
      comm_(comm),
      params_(AllParameters()),
      hooks_(params_, [this](size_t param) { OnGradientReady(param); }) {
  slots_.resize(params_.size());
  std::vector<size_t> bytes;
  for (const torch::Tensor& p : params_) bytes.push_back(static_cast<size_t>(p.numel()) * sizeof(float));
  for (std::vector<size_t>& members : AssignBuckets(bytes, bucket_bytes)) {
    std::vector<torch::Tensor> tensors;
    for (size_t position = 0; position < members.size(); ++position) {
      slots_[members[position]] = Slot{buckets_.size(), position, false};
      tensors.push_back(params_[members[position]]);
    }
    buckets_.push_back(Bucket{std::move(members), GradientBuffer(std::move(tensors))});
  }
  StartOver();
}

void OverlappedGradientSync::OnGradientReady(size_t param) {
  std::lock_guard<std::mutex> lock(mutex_);
  Slot& slot = slots_[param];
  if (!armed_ || slot.packed) return;
  Bucket& bucket = buckets_[slot.bucket];
  bucket.buffer.PackOne(slot.position);
  slot.packed = true;
  if (launcher_.MemberReady(slot.bucket)) launcher_.LaunchFull();
}

void OverlappedGradientSync::LaunchBucket(size_t bucket) {
  GradientBuffer* buffer = &buckets_[bucket].buffer;
  worker_.Launch([this, buffer] {
    return comm_.AllReduce(buffer->data(), buffer->size(), DType::kFloat32, ReduceOp::kSum);
  });
}

// Parameters backward gave no gradient this step (or every one, when no backward was armed).
void OverlappedGradientSync::PackWhatBackwardDidNot() {
  for (size_t b = launcher_.next(); b < buckets_.size(); ++b) {
    Bucket& bucket = buckets_[b];
    for (size_t position = 0; position < bucket.params.size(); ++position) {
      Slot& slot = slots_[bucket.params[position]];
      if (!slot.packed) bucket.buffer.PackOne(position);
      slot.packed = true;
    }
  }
}

void OverlappedGradientSync::StartOver() {
  armed_ = false;
  std::vector<size_t> sizes;
  for (const Bucket& bucket : buckets_) sizes.push_back(bucket.params.size());
  launcher_.Restart(std::move(sizes));
  for (Slot& slot : slots_) slot.packed = false;
}

Status OverlappedGradientSync::Synchronize(PhaseTimer& phases) {
  std::lock_guard<std::mutex> lock(mutex_);
  armed_ = false;
  phases.Time(TrainingPhase::kOptimizer, [&] { PackWhatBackwardDidNot(); });
  Status reduced = Status::Ok();
  phases.Time(TrainingPhase::kCommunication, [&] {
    launcher_.LaunchTheRest();
    reduced = worker_.WaitAll();
  });
  phases.AddCollectiveSeconds(worker_.TakeBusySeconds());
  StartOver();
  RETURN_IF_ERROR(reduced);
  phases.Time(TrainingPhase::kOptimizer, [&] {
    for (Bucket& bucket : buckets_) bucket.buffer.UnpackAveraged(comm_.world_size());
  });
  return Status::Ok();
}

}  // namespace

std::vector<std::vector<size_t>> AssignBuckets(const std::vector<size_t>& param_bytes, size_t bucket_bytes) {
  std::vector<std::vector<size_t>> buckets;
  size_t filled = 0;
  for (size_t i = param_bytes.size(); i-- > 0;) {
    if (buckets.empty() || filled >= bucket_bytes) {
      buckets.emplace_back();
      filled = 0;
    }
    buckets.back().push_back(i);
    filled += param_bytes[i];
  }
  return buckets;
}

std::unique_ptr<GradientSync> MakeOverlappedGradientSync(Communicator& comm, ParameterGroups groups,
                                                         size_t bucket_bytes) {
  return std::make_unique<OverlappedGradientSync>(comm, std::move(groups), bucket_bytes);
}

}  // namespace ergobench

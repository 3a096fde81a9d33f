#include "runner/tasks/sharded_gradient_sync.h"

#include <cmath>
#include <mutex>
#include <optional>

#include "runner/dist/collective_worker.h"
#include "runner/dist/communicator.h"
#include "runner/tasks/gradient_ready_hooks.h"
#include "runner/tasks/memory_accounting.h"
#include "runner/tasks/overlapped_gradient_sync.h"

namespace ergobench {
namespace {

// Some parameters' values and gradients laid out in one flat buffer of k blocks.
struct Unit {
  size_t group = 0;
  std::vector<torch::Tensor> params;  // in buffer order
  std::vector<int64_t> offsets;       // of each parameter in the buffers
  int64_t block = 0;                  // elements per rank
  torch::Tensor flat_params;          // k * block; the model's parameters are views into it
  torch::Tensor owned;                // this rank's block of flat_params: what the optimizer steps
  torch::Tensor flat_grads;           // k * block; stage 1: the model's .grad are views into it;
                                      // stage 2: this backward's packed gradients, until launched
  torch::Tensor owned_grad;           // the block's averaged gradient; stage 2 sums micro-batches
                                      // into it. Not a view: optimizers detach .grad in place.
  size_t pending = 0;                 // stage 2: parameters not packed yet in this backward
};

torch::Tensor Block(const torch::Tensor& flat, int64_t block, int rank) {
  return flat.slice(0, rank * block, (rank + 1) * block);
}

class ShardedGradientSync : public GradientSync {
 public:
  ShardedGradientSync(Communicator& comm, ParameterGroups groups, size_t bucket_bytes, int stage);

  ParameterGroups OptimizerGroups() const override;
  void StartStep() override;
  void BeforeBackward(bool last) override;
  Status Synchronize(PhaseTimer& phases) override;
  Status ClipGradNorm(double max_norm) override;
  Status AfterUpdate(PhaseTimer& phases) override;
  // Stage 1's .grad are views into flat_grads, counted once; stage 2 keeps only owned_grad.
  int64_t GradientBytes() const override {
    std::vector<torch::Tensor> held;
    for (const Unit& unit : units_) held.insert(held.end(), {unit.flat_grads, unit.owned_grad});
    return TensorBytes(held);
  }

 private:
  void BuildUnits(const ParameterGroups& groups, size_t bucket_bytes);
  void ShareStorage(Unit& unit);
  void OnGradientReady(size_t param);
  void LaunchFullUnitsInOrder();
  void LaunchTheRest();
  Status ReduceScatterWholeGradients(PhaseTimer& phases);
  Status WaitForLaunchedUnits(PhaseTimer& phases);

  Communicator& comm_;
  const int stage_;
  const int rank_;
  const int world_size_;
  std::vector<Unit> units_;
  std::vector<std::pair<size_t, size_t>> slots_;  // by parameter: unit, position in it
  std::vector<torch::Tensor> params_;              // every parameter, as slots_ counts them
  std::mutex mutex_;                               // stage 2's hooks run on autograd's threads
  bool backward_seen_ = false;                     // since the last launch of every unit
  size_t next_launch_ = 0;
  // Stage 2's; the worker last, destroyed first: its thread reads the units.
  std::optional<GradientReadyHooks> hooks_;
  std::optional<CollectiveWorker> worker_;
};

ShardedGradientSync::ShardedGradientSync(Communicator& comm, ParameterGroups groups, size_t bucket_bytes, int stage)
    : comm_(comm), stage_(stage), rank_(comm.rank()), world_size_(comm.world_size()) {
  BuildUnits(groups, bucket_bytes);
  if (stage_ == 2) {
    hooks_.emplace(params_, [this](size_t param) { OnGradientReady(param); });
    worker_.emplace();
  }
}

// Units never mix groups: the optimizer treats each owned block by its group's options.
void ShardedGradientSync::BuildUnits(const ParameterGroups& groups, size_t bucket_bytes) {
  torch::NoGradGuard no_grad;
  for (size_t g = 0; g < groups.size(); ++g) {
    std::vector<size_t> bytes;
    for (const torch::Tensor& p : groups[g]) bytes.push_back(static_cast<size_t>(p.numel()) * sizeof(float));
    for (const std::vector<size_t>& members : AssignBuckets(bytes, bucket_bytes)) {
      Unit unit;
      unit.group = g;
      int64_t numel = 0;
      for (size_t index : members) {
        slots_.emplace_back(units_.size(), unit.params.size());
        params_.push_back(groups[g][index]);
        unit.params.push_back(groups[g][index]);
        unit.offsets.push_back(numel);
        numel += groups[g][index].numel();
      }
      unit.block = ShardLength(numel, world_size_);
      ShareStorage(unit);
      units_.push_back(std::move(unit));
    }
  }
}

// The parameters' values move into the flat buffer and the parameters become views of it, so
// that an all-gather into the buffer updates the model. Stage 1 does the same for .grad.
void ShardedGradientSync::ShareStorage(Unit& unit) {
  unit.flat_params = torch::zeros({unit.block * world_size_});
  unit.owned = Block(unit.flat_params, unit.block, rank_);
  if (stage_ == 1) unit.flat_grads = torch::zeros({unit.block * world_size_});
  unit.owned_grad = torch::zeros({unit.block});
  for (size_t i = 0; i < unit.params.size(); ++i) {
    torch::Tensor& p = unit.params[i];
    const int64_t begin = unit.offsets[i];
    torch::Tensor values = unit.flat_params.slice(0, begin, begin + p.numel());
    values.copy_(p.detach().reshape({-1}));
    p.set_data(values.view(p.sizes()));
    if (stage_ == 1) p.mutable_grad() = unit.flat_grads.slice(0, begin, begin + p.numel()).view(p.sizes());
  }
}

ParameterGroups ShardedGradientSync::OptimizerGroups() const {
  ParameterGroups groups;
  for (const Unit& unit : units_) {
    if (groups.size() <= unit.group) groups.resize(unit.group + 1);
    groups[unit.group].push_back(unit.owned);
  }
  return groups;
}

void ShardedGradientSync::StartStep() {
  torch::NoGradGuard no_grad;
  for (Unit& unit : units_) (stage_ == 1 ? unit.flat_grads : unit.owned_grad).zero_();
}

// Stage 2 reduces each backward's gradients; what the previous backward left unpacked (a
// parameter it gave no gradient) goes now, as zeros.
void ShardedGradientSync::BeforeBackward(bool) {
  if (stage_ == 1) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (backward_seen_) LaunchTheRest();
  backward_seen_ = true;
  next_launch_ = 0;
  for (Unit& unit : units_) unit.pending = unit.params.size();
}

void ShardedGradientSync::OnGradientReady(size_t param) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto [u, position] = slots_[param];
  Unit& unit = units_[u];
  if (!backward_seen_ || unit.pending == 0) return;
  if (!unit.flat_grads.defined()) unit.flat_grads = torch::zeros({unit.block * world_size_});
  torch::Tensor& p = unit.params[position];
  const int64_t begin = unit.offsets[position];
  unit.flat_grads.slice(0, begin, begin + p.numel()).copy_(p.grad().reshape({-1}));
  p.mutable_grad().reset();  // packed: the whole gradient is not kept
  if (--unit.pending == 0) LaunchFullUnitsInOrder();
}

// In unit order, whatever order backward filled them in: every rank must issue the same
// collectives in the same order.
void ShardedGradientSync::LaunchFullUnitsInOrder() {
  for (; next_launch_ < units_.size() && units_[next_launch_].pending == 0; ++next_launch_) {
    Unit& unit = units_[next_launch_];
    if (!unit.flat_grads.defined()) unit.flat_grads = torch::zeros({unit.block * world_size_});
    worker_->Launch([this, &unit, grads = std::move(unit.flat_grads)]() -> Status {
      RETURN_IF_ERROR(comm_.ReduceScatter(grads.data_ptr<float>(), static_cast<size_t>(unit.block), DType::kFloat32,
                                          ReduceOp::kSum));
      torch::NoGradGuard no_grad;
      unit.owned_grad.add_(Block(grads, unit.block, rank_));
      return Status::Ok();
    });  // the moved-from flat_grads is empty: the next backward packs into a new buffer
  }
}

void ShardedGradientSync::LaunchTheRest() {
  for (Unit& unit : units_) unit.pending = 0;
  LaunchFullUnitsInOrder();
  backward_seen_ = false;
}

Status ShardedGradientSync::Synchronize(PhaseTimer& phases) {
  RETURN_IF_ERROR(stage_ == 1 ? ReduceScatterWholeGradients(phases) : WaitForLaunchedUnits(phases));
  phases.Time(TrainingPhase::kOptimizer, [&] {
    torch::NoGradGuard no_grad;
    for (Unit& unit : units_) {
      if (stage_ == 1) unit.owned_grad.copy_(Block(unit.flat_grads, unit.block, rank_));
      unit.owned.mutable_grad() = unit.owned_grad.div_(world_size_);
    }
  });
  return Status::Ok();
}

Status ShardedGradientSync::ReduceScatterWholeGradients(PhaseTimer& phases) {
  Status reduced = Status::Ok();
  const double waited = phases.Time(TrainingPhase::kCommunication, [&] {
    for (Unit& unit : units_) {
      reduced = comm_.ReduceScatter(unit.flat_grads.data_ptr<float>(), static_cast<size_t>(unit.block),
                                    DType::kFloat32, ReduceOp::kSum);
      if (!reduced.ok()) return;
    }
  });
  phases.AddCollectiveSeconds(waited);
  return reduced;
}

Status ShardedGradientSync::WaitForLaunchedUnits(PhaseTimer& phases) {
  std::lock_guard<std::mutex> lock(mutex_);
  Status reduced = Status::Ok();
  phases.Time(TrainingPhase::kCommunication, [&] {
    LaunchTheRest();
    reduced = worker_->WaitAll();
  });
  phases.AddCollectiveSeconds(worker_->TakeBusySeconds());
  return reduced;
}

// The norm over all parameters is the root of the owned blocks' squared norms summed over
// ranks (padding adds zeros); every rank then scales its blocks alike.
Status ShardedGradientSync::ClipGradNorm(double max_norm) {
  double squares = 0;
  for (const Unit& unit : units_) squares += unit.owned.grad().pow(2).sum().item<double>();
  RETURN_IF_ERROR(comm_.AllReduce(&squares, 1, DType::kFloat64, ReduceOp::kSum));
  const double coefficient = max_norm / (std::sqrt(squares) + 1e-6);  // torch's clip_grad_norm_
  if (coefficient >= 1) return Status::Ok();
  torch::NoGradGuard no_grad;
  for (Unit& unit : units_) unit.owned.mutable_grad().mul_(coefficient);
  return Status::Ok();
}

Status ShardedGradientSync::AfterUpdate(PhaseTimer& phases) {
  Status gathered = Status::Ok();
  const double waited = phases.Time(TrainingPhase::kCommunication, [&] {
    for (Unit& unit : units_) {
      gathered = comm_.AllGather(unit.flat_params.data_ptr<float>(), static_cast<size_t>(unit.block), DType::kFloat32);
      if (!gathered.ok()) return;
    }
  });
  phases.AddCollectiveSeconds(waited);
  return gathered;
}

}  // namespace

int64_t ShardLength(int64_t numel, int world_size) { return (numel + world_size - 1) / world_size; }

std::unique_ptr<GradientSync> MakeShardedGradientSync(Communicator& comm, ParameterGroups groups,
                                                      size_t bucket_bytes, int stage) {
  return std::make_unique<ShardedGradientSync>(comm, std::move(groups), bucket_bytes, stage);
}

}  // namespace ergobench

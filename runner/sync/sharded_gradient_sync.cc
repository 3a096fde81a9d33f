#include "runner/sync/sharded_gradient_sync.h"

#include <malloc.h>

#include <cmath>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "runner/dist/collective_worker.h"
#include "runner/dist/communicator.h"
#include "runner/models/block_hooks.h"
#include "runner/sync/gradient_ready_hooks.h"
#include "runner/sync/in_order_launcher.h"
#include "runner/sync/overlapped_gradient_sync.h"
#include "runner/train/memory_accounting.h"

namespace ergobench {
namespace {

// Some parameters' values and gradients laid out in one flat buffer of k blocks.
struct Unit {
  size_t group = 0;
  torch::Device device = torch::kCPU;  // the parameters', where every buffer of the unit lives
  std::vector<torch::Tensor> params;  // in buffer order
  std::vector<int64_t> offsets;       // of each parameter in the buffers
  int64_t block = 0;                  // elements per rank
  torch::Tensor flat_params;          // k * block; the model's parameters are views into it
                                      // (stage 3: its storage holds memory only while whole)
  torch::Tensor owned;                // this rank's block of flat_params: what the optimizer steps
                                      // (stage 3: a tensor of its own, kept between uses)
  bool whole = true;                  // stage 3: the parameters hold their values
  torch::Tensor flat_grads;           // k * block; stage 1: the model's .grad are views into it;
                                      // stages 2, 3: this backward's packed gradients, until launched
  torch::Tensor owned_grad;           // the block's averaged gradient; stages 2 and 3 sum
                                      // micro-batches into it. Not a view: optimizers detach
                                      // .grad in place.
};

// Zeros of the unit's element type (fp32: its collectives send kFloat32) on its device.
torch::Tensor Zeros(const Unit& unit, int64_t elements) {
  return torch::zeros({elements}, torch::TensorOptions().dtype(torch::kFloat32).device(unit.device));
}

torch::Tensor Block(const torch::Tensor& flat, int64_t block, int rank) {
  return flat.slice(0, rank * block, (rank + 1) * block);
}

// Throws from where a Status cannot be returned (inside a model's forward and autograd's
// hooks); the task's runner reports the exception as the rank's failure.
void ThrowIfError(const Status& status) {
  if (!status.ok()) throw std::runtime_error(status.ToString());
}

class ShardedGradientSync : public GradientSync, public BlockHooks {
 public:
  ShardedGradientSync(Communicator& comm, ParameterGroups groups, size_t bucket_bytes, int stage,
                      const ParameterGroups& blocks);

  ParameterGroups OptimizerGroups() const override;
  void StartStep(PhaseTimer& phases) override;
  void BeforeBackward(bool last) override;
  Status Synchronize(PhaseTimer& phases) override;
  StatusOr<double> GradNorm() override;
  void ScaleGradients(double factor) override;
  Status AfterUpdate(PhaseTimer& phases) override;
  // Stage 1's .grad are views into flat_grads, counted once; stages 2 and 3 keep only owned_grad.
  int64_t GradientBytes() const override {
    std::vector<torch::Tensor> held;
    for (const Unit& unit : units_) held.insert(held.end(), {unit.flat_grads, unit.owned_grad});
    return TensorBytes(held);
  }
  int64_t ParameterBytes() const override;
  Status GatherParameters() override;
  BlockHooks* block_hooks() override { return stage_ == 3 ? this : nullptr; }
  void BeforeBlock(size_t block) override { ThrowIfError(GatherBlock(block)); }
  at::Tensor AfterBlock(size_t block, at::Tensor output) override;

 private:
  void BuildUnits(const ParameterGroups& groups, size_t bucket_bytes);
  void BuildBlockUnits(const ParameterGroups& groups, const ParameterGroups& blocks);
  void AddUnit(size_t group, const std::vector<torch::Tensor>& members);
  void ShareStorage(Unit& unit);
  Status GatherBlock(size_t block);
  void Release(Unit& unit);
  void OnGradientReady(size_t param);
  void LaunchUnit(size_t u);
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
  std::vector<std::vector<size_t>> block_units_;   // stage 3: by model block, its units
  std::mutex mutex_;                               // hooks run on autograd's threads
  bool backward_seen_ = false;                     // since the last launch of every unit
  PhaseTimer* step_phases_ = nullptr;              // stage 3: while a step runs, where its gathers' waits go
  InOrderLauncher launcher_{[this](size_t u) { LaunchUnit(u); }};  // stages 2, 3: units packed in this backward
  // Stages 2 and 3; the worker last, destroyed first: its thread reads the units.
  std::optional<GradientReadyHooks> hooks_;
  std::optional<CollectiveWorker> worker_;
};

ShardedGradientSync::ShardedGradientSync(Communicator& comm, ParameterGroups groups, size_t bucket_bytes, int stage,
                                         const ParameterGroups& blocks)
    : comm_(comm), stage_(stage), rank_(comm.rank()), world_size_(comm.world_size()) {
  stage_ == 3 ? BuildBlockUnits(groups, blocks) : BuildUnits(groups, bucket_bytes);
  launcher_.Restart(std::vector<size_t>(units_.size(), 0));  // no backward yet: nothing waited for
  if (stage_ >= 2) {
    hooks_.emplace(params_, [this](size_t param) { OnGradientReady(param); });
    worker_.emplace();
  }
  // The model's own parameter storage is free now (moved into the units, or for stage 3 let
  // go). The runner keeps freed memory in the heap for speed (KeepLargeAllocationsInTheHeap),
  // so without this the process would stay as large as the whole model: give those pages back.
  malloc_trim(0);
}

// Units never mix groups: the optimizer treats each owned block by its group's options.
void ShardedGradientSync::BuildUnits(const ParameterGroups& groups, size_t bucket_bytes) {
  for (size_t g = 0; g < groups.size(); ++g) {
    std::vector<size_t> bytes;
    for (const torch::Tensor& p : groups[g]) bytes.push_back(static_cast<size_t>(p.numel()) * sizeof(float));
    for (const std::vector<size_t>& members : AssignBuckets(bytes, bucket_bytes)) {
      std::vector<torch::Tensor> tensors;
      for (size_t index : members) tensors.push_back(groups[g][index]);
      AddUnit(g, tensors);
    }
  }
}

// Stage 3: a unit per model block and group, in the order backward completes them: the last
// block first, the ends (whose token embedding backward reaches last) at the end.
void ShardedGradientSync::BuildBlockUnits(const ParameterGroups& groups, const ParameterGroups& blocks) {
  std::map<const void*, size_t> group_of;
  for (size_t g = 0; g < groups.size(); ++g) {
    for (const torch::Tensor& p : groups[g]) group_of[p.unsafeGetTensorImpl()] = g;
  }
  block_units_.resize(blocks.size());
  for (size_t b = blocks.size(); b-- > 0;) {
    for (size_t g = 0; g < groups.size(); ++g) {
      std::vector<torch::Tensor> members;
      for (const torch::Tensor& p : blocks[b]) {
        if (group_of.at(p.unsafeGetTensorImpl()) == g) members.push_back(p);
      }
      if (members.empty()) continue;
      block_units_[b].push_back(units_.size());
      AddUnit(g, members);
    }
  }
}

void ShardedGradientSync::AddUnit(size_t group, const std::vector<torch::Tensor>& members) {
  Unit unit;
  unit.group = group;
  unit.device = members.front().device();
  int64_t numel = 0;
  for (const torch::Tensor& p : members) {
    slots_.emplace_back(units_.size(), unit.params.size());
    params_.push_back(p);
    unit.params.push_back(p);
    unit.offsets.push_back(numel);
    numel += p.numel();
  }
  unit.block = ShardLength(numel, world_size_);
  ShareStorage(unit);
  units_.push_back(std::move(unit));
}

// The parameters' values move into the flat buffer and the parameters become views of it, so
// that an all-gather into the buffer updates the model. Stage 1 does the same for .grad;
// stage 3 keeps its block apart and lets the buffer go at once, rather than holding every
// unit's whole buffer until all are built.
void ShardedGradientSync::ShareStorage(Unit& unit) {
  torch::NoGradGuard no_grad;
  unit.flat_params = Zeros(unit, unit.block * world_size_);
  unit.owned = Block(unit.flat_params, unit.block, rank_);
  if (stage_ == 1) unit.flat_grads = Zeros(unit, unit.block * world_size_);
  unit.owned_grad = Zeros(unit, unit.block);
  for (size_t i = 0; i < unit.params.size(); ++i) {
    torch::Tensor& p = unit.params[i];
    const int64_t begin = unit.offsets[i];
    torch::Tensor values = unit.flat_params.slice(0, begin, begin + p.numel());
    values.copy_(p.detach().reshape({-1}));
    p.set_data(values.view(p.sizes()));
    if (stage_ == 1) p.mutable_grad() = unit.flat_grads.slice(0, begin, begin + p.numel()).view(p.sizes());
  }
  if (stage_ == 3) {
    unit.owned = unit.owned.clone();
    Release(unit);
  }
}

// FSDP's way of letting whole parameters go: the flat buffer's storage gives its memory back
// but stays, with the parameters, and the views autograd saved of them, pointing into it.
// Gathering allocates it again, and those views see the gathered values.
void ShardedGradientSync::Release(Unit& unit) {
  unit.flat_params.storage().unsafeGetStorageImpl()->reset();
  unit.whole = false;
}

Status ShardedGradientSync::GatherBlock(size_t block) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Unit*> gathering;
  for (size_t u : block_units_.at(block)) {
    Unit& unit = units_[u];
    if (unit.whole) continue;
    c10::StorageImpl* storage = unit.flat_params.storage().unsafeGetStorageImpl();
    const size_t bytes = static_cast<size_t>(unit.flat_params.numel()) * sizeof(float);
    storage->set_data_ptr_noswap(storage->allocator()->allocate(bytes));
    storage->set_nbytes(bytes);
    torch::NoGradGuard no_grad;
    Block(unit.flat_params, unit.block, rank_).copy_(unit.owned);
    worker_->Launch([this, flat = unit.flat_params.data_ptr<float>(), block = unit.block]() {
      return comm_.AllGather(flat, static_cast<size_t>(block), DType::kFloat32);
    });
    gathering.push_back(&unit);
  }
  if (gathering.empty()) return Status::Ok();
  // Inside a step the wait is communication, taken out of forward or backward; outside
  // (evaluation, the final digest) it stays where it is.
  Status gathered = Status::Ok();
  const auto wait = [&] { gathered = worker_->WaitAll(); };
  if (step_phases_ != nullptr) {
    step_phases_->Time(TrainingPhase::kCommunication, wait);
  } else {
    wait();
  }
  RETURN_IF_ERROR(gathered);
  for (Unit* unit : gathering) unit->whole = true;
  return Status::Ok();
}

// After a block's forward its parameters go; backward reaching the block's output gathers
// them again. Without a graph (evaluation) there is no backward to prepare for.
at::Tensor ShardedGradientSync::AfterBlock(size_t block, at::Tensor output) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t u : block_units_.at(block)) Release(units_[u]);
  }
  if (output.requires_grad()) {
    output.register_hook([this, block](const at::Tensor&) { ThrowIfError(GatherBlock(block)); });
  }
  return output;
}

Status ShardedGradientSync::GatherParameters() {
  for (size_t block = 0; block < block_units_.size(); ++block) RETURN_IF_ERROR(GatherBlock(block));
  return Status::Ok();
}

int64_t ShardedGradientSync::ParameterBytes() const {
  if (stage_ < 3) return TensorBytes(params_);
  std::vector<torch::Tensor> owned;
  for (const Unit& unit : units_) owned.push_back(unit.owned);
  return TensorBytes(owned);
}

ParameterGroups ShardedGradientSync::OptimizerGroups() const {
  ParameterGroups groups;
  for (const Unit& unit : units_) {
    if (groups.size() <= unit.group) groups.resize(unit.group + 1);
    groups[unit.group].push_back(unit.owned);
  }
  return groups;
}

void ShardedGradientSync::StartStep(PhaseTimer& phases) {
  if (stage_ == 3) {
    step_phases_ = &phases;
    worker_->TakeBusySeconds();  // evaluation's gathers: outside any step
  }
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
  std::vector<size_t> sizes;
  for (const Unit& unit : units_) sizes.push_back(unit.params.size());
  launcher_.Restart(std::move(sizes));
}

void ShardedGradientSync::OnGradientReady(size_t param) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto [u, position] = slots_[param];
  Unit& unit = units_[u];
  if (!backward_seen_ || launcher_.full(u)) return;
  if (!unit.flat_grads.defined()) unit.flat_grads = Zeros(unit, unit.block * world_size_);
  torch::Tensor& p = unit.params[position];
  const int64_t begin = unit.offsets[position];
  unit.flat_grads.slice(0, begin, begin + p.numel()).copy_(p.grad().reshape({-1}));
  p.mutable_grad().reset();  // packed: the whole gradient is not kept
  if (!launcher_.MemberReady(u)) return;
  if (stage_ == 3) Release(unit);  // backward is done with the unit's parameters
  launcher_.LaunchFull();
}

void ShardedGradientSync::LaunchUnit(size_t u) {
  Unit& unit = units_[u];
  if (!unit.flat_grads.defined()) unit.flat_grads = Zeros(unit, unit.block * world_size_);
  worker_->Launch([this, &unit, grads = std::move(unit.flat_grads)]() -> Status {
    RETURN_IF_ERROR(comm_.ReduceScatter(grads.data_ptr<float>(), static_cast<size_t>(unit.block), DType::kFloat32,
                                        ReduceOp::kSum));
    torch::NoGradGuard no_grad;
    unit.owned_grad.add_(Block(grads, unit.block, rank_));
    return Status::Ok();
  });  // the moved-from flat_grads is empty: the next backward packs into a new buffer
}

void ShardedGradientSync::LaunchTheRest() {
  launcher_.LaunchTheRest();
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
StatusOr<double> ShardedGradientSync::GradNorm() {
  double squares = 0;
  for (const Unit& unit : units_) {
    const double norm = unit.owned.grad().norm().item<double>();
    squares += norm * norm;
  }
  RETURN_IF_ERROR(comm_.AllReduce(&squares, 1, DType::kFloat64, ReduceOp::kSum));
  return std::sqrt(squares);
}

void ShardedGradientSync::ScaleGradients(double factor) {
  torch::NoGradGuard no_grad;
  for (Unit& unit : units_) unit.owned.mutable_grad().mul_(factor);
}

Status ShardedGradientSync::AfterUpdate(PhaseTimer& phases) {
  if (stage_ == 3) {  // the owned blocks are the parameters; whole ones are stale now
    std::lock_guard<std::mutex> lock(mutex_);
    step_phases_ = nullptr;
    for (Unit& unit : units_) {
      if (unit.whole) Release(unit);
    }
    return Status::Ok();
  }
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
                                                      size_t bucket_bytes, int stage, ParameterGroups blocks) {
  return std::make_unique<ShardedGradientSync>(comm, std::move(groups), bucket_bytes, stage, blocks);
}

}  // namespace ergobench

#include "runner/train/training_loop.h"

#include <chrono>

#include "runner/data/data_bytes.h"
#include "runner/dist/communicator.h"
#include "runner/metrics/mllog.h"
#include "runner/metrics/process_io.h"
#include "runner/metrics/runner_metrics.h"
#include "runner/metrics/tensor_memory.h"
#include "runner/progress_writer.h"
#include "runner/train/device_tensor_memory.h"
#include "runner/train/flop_counter.h"
#include "runner/train/memory_accounting.h"
#include "runner/train/parameter_digest.h"
#include "runner/train/phase_timer.h"
#include "runner/train/rank_peak.h"
#include "runner/train/training_device.h"

namespace ergobench {
namespace {

class TrainingLoop {
 public:
  TrainingLoop(TaskContext& context, Trainee& trainee)
      : context_(context),
        comm_(context.communicator),
        trainee_(trainee),
        clock_(context.mllog, context.metrics, trainee.throughput_warmup_steps()),
        phases_(context.metrics) {}

  StatusOr<TaskOutcome> Run() {
    trainee_.LogRecipe(context_.mllog);
    if (const std::optional<GoalTrend> goal = trainee_.goal()) context_.progress.SetGoal(*goal);
    RETURN_IF_ERROR(Initialise());
    Figures& figures = outcome_.figures;
    clock_.StartRun(&figures);
    const IoMark start = MarkIo();
    ASSIGN_OR_RETURN(const TrainingPlan plan, trainee_.Load());
    load_seconds_ = SecondsSince(start.time);
    ASSIGN_OR_RETURN(const int64_t epochs, Train(plan));
    clock_.StopRun(trainee_.goal().has_value(), &figures);
    figures.epochs = epochs;
    phases_.Settle();
    phases_.Report(&figures);
    ReportModelFlops(&figures);
    ReportIo(start, &figures);
    trainee_.Finish(clock_, &figures);
    if (scaler_) {
      figures.loss_scale = scaler_->scale();
      figures.skipped_updates = clock_.steps() - driver_->updates();
    }
    figures.memory = PublishMemory(context_.metrics, driver_->tensor_peak(), *sync_, *optimizer_);
    // Training is over: the optimizer's state goes before ZeRO-3 gathers the whole model for
    // the digest, which would otherwise come on top of it and raise the process's peak.
    driver_.reset();
    optimizer_.reset();
    RETURN_IF_ERROR(sync_->GatherParameters());
    figures.parameter_digest = ParameterDigest(model_.parameters);
    outcome_.summary = trainee_.Summary(figures);
    return outcome_;
  }

 private:
  // Initialisation, reported apart from time to the goal: the model and the optimizer, and
  // the peak MFU divides by (on a CPU, measured now, before the ranks' work competes with it).
  Status Initialise() {
    torch::manual_seed(static_cast<uint64_t>(trainee_.seed()));
    if (trainee_.peak_flops_override() > 0) {
      peak_ = RankPeak{trainee_.peak_flops_override(), "peakTflops", std::nullopt};
    } else {
      peak_ = PeakOfRank(trainee_.device(), trainee_.precision());
    }
    if (peak_) context_.metrics.SetPeakFlops(peak_->flops_per_second);
    if (const torch::Device device = trainee_.device(); device.is_cuda()) {
      if (std::unique_ptr<PhaseTimeline> timeline = OpenDeviceTimeline(device)) {
        phases_.set_timeline(std::move(timeline));
      } else {
        phases_.set_fence([device] { FenceDevice(device); });
      }
    }
    // Before the model, so that its parameters count. The CPU's counting allocator serves every
    // run, a GPU run's host tensors too; a GPU run's figures are the GPU's.
    TensorMemory::Install();
    TensorMemory* memory = DeviceTensorMemory(trainee_.device());
    ASSIGN_OR_RETURN(model_, trainee_.BuildModel());
    RETURN_IF_ERROR(BroadcastFromRankZero(comm_, model_.parameters));
    ASSIGN_OR_RETURN(sync_, MakeGradientSync(trainee_.sync_options(), comm_, model_.groups, model_.blocks));
    optimizer_ = trainee_.MakeOptimizer(*sync_);
    driver_ = std::make_unique<StepDriver>(comm_, clock_, phases_, *sync_, *optimizer_, memory);
    if (const std::optional<LossScalerOptions> scaling = trainee_.loss_scaling()) {
      ASSIGN_OR_RETURN(DynamicLossScaler scaler, DynamicLossScaler::Create(*scaling));
      scaler_ = scaler;
      driver_->set_loss_scaler(&*scaler_);
    }
    return Status::Ok();
  }

  // The steps of the plan, or until the goal; returns the epoch of the last step.
  StatusOr<int64_t> Train(const TrainingPlan& plan) {
    if (plan.steps_per_epoch <= 0) return Status::Internal("a training plan with no step in an epoch");
    int64_t epoch = 0;
    for (int64_t step = 0; step < plan.steps; ++step) {
      const int64_t in_epoch = step % plan.steps_per_epoch;
      if (in_epoch == 0) {
        epoch = step / plan.steps_per_epoch + 1;
        context_.metrics.SetEpoch(epoch);
        // MLPerf's blocks: one epoch each, an evaluation after it (api/contract/mlperf_log_rules.h).
        context_.mllog.Start("block_start", {{"first_epoch_num", epoch}, {"epoch_count", 1}});
        trainee_.BeginEpoch(epoch);
      }
      const double lr = trainee_.LearningRate(driver_->updates());
      for (auto& group : optimizer_->param_groups()) group.options().set_lr(lr);
      // Counted within the epoch: every epoch begins with a stop check, however short it is.
      const int64_t updates = driver_->updates();
      StepWork work = trainee_.WorkOf(step);
      if (step == 0) CountFirstForward(&work);
      ASSIGN_OR_RETURN(const double loss, driver_->Step(in_epoch, work));
      PublishDataBytes();
      if (scaler_) context_.metrics.SetLossScaling(scaler_->scale(), driver_->updates() == updates);
      const bool evaluate = trainee_.AfterStep(step, loss);
      if (in_epoch + 1 == plan.steps_per_epoch) {
        trainee_.EndEpoch(epoch);
        context_.mllog.Stop("block_stop", {{"first_epoch_num", epoch}});
      }
      if (!evaluate) continue;
      ASSIGN_OR_RETURN(const bool reached, Evaluate(step, epoch));
      if (reached) {
        clock_.ReachGoal(&outcome_.figures);
        break;
      }
    }
    return epoch;
  }

  // The model's FLOPs a sample, from the first micro-batch's forward (flop_counter.h): every
  // step's are alike, and counting one costs a few milliseconds of the first, warm-up step.
  void CountFirstForward(StepWork* work) {
    const double samples = static_cast<double>(work->samples) / static_cast<double>(std::max<int64_t>(work->micro_batches, 1));
    work->loss = [this, loss = std::move(work->loss), samples](int64_t micro) {
      if (micro != 0 || forward_flops_per_sample_) return loss(micro);
      FlopCounter counter;
      torch::Tensor out = loss(micro);
      if (counter.flops() > 0 && samples > 0) {
        forward_flops_per_sample_ = counter.flops() / samples;
        context_.metrics.SetFlopsPerSample(3 * *forward_flops_per_sample_);  // from now on, for live MFU
      }
      return out;
    };
  }

  // A training sample is its forward and a backward of twice its FLOPs; the rate is at the
  // throughput window's samples/s, against the rank's peak.
  void ReportModelFlops(Figures* f) {
    if (peak_) {
      f->peak_flops_per_second = peak_->flops_per_second;
      f->peak_basis = peak_->basis;
      f->achievable_flops_per_second = peak_->achievable_flops_per_second;
    }
    if (!forward_flops_per_sample_) return;
    f->flops_per_sample = 3 * *forward_flops_per_sample_;
    if (!f->samples_per_second) return;
    f->model_flops_per_second = *f->flops_per_sample * *f->samples_per_second;
    if (peak_ && peak_->flops_per_second > 0) f->mfu = *f->model_flops_per_second / peak_->flops_per_second;
  }

  // Where the data path's I/O stood at run_start.
  struct IoMark {
    std::chrono::steady_clock::time_point time;
    int64_t data_bytes;
    std::optional<int64_t> storage_bytes;
  };
  IoMark MarkIo() {
    PublishDataBytes();
    return {std::chrono::steady_clock::now(), DataBytesRead(), StorageReadBytes()};
  }
  static double SecondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  // The data bytes read since the last call, to ergobench_data_read_bytes_total.
  void PublishDataBytes() {
    const int64_t now = DataBytesRead();
    context_.metrics.AddDataBytes(static_cast<double>(now - data_bytes_published_));
    data_bytes_published_ = now;
  }

  // The I/O figures of the run (IoFigures): what the readers read since `start`, what the
  // kernel fetched from storage, and the rate the data path prepared training samples at: from
  // its own clock where it works beside the steps, else from the steps' data phase.
  void ReportIo(const IoMark& start, Figures* f) {
    PublishDataBytes();
    IoFigures io;
    io.data_bytes = DataBytesRead() - start.data_bytes;
    if (f->run_seconds > 0) io.data_bytes_per_second = static_cast<double>(io.data_bytes) / f->run_seconds;
    if (const std::optional<int64_t> storage = StorageReadBytes(); storage && start.storage_bytes) {
      io.storage_bytes = *storage - *start.storage_bytes;
    }
    io.load_seconds = load_seconds_;
    LoadingWork work;
    if (const std::optional<LoadingWork> beside = trainee_.TrainingDataWork()) {
      work = *beside;
    } else if (const auto data = f->phase_seconds.find(PhaseName(TrainingPhase::kData)); data != f->phase_seconds.end()) {
      work = {f->samples.value_or(0), data->second};
    }
    if (work.samples > 0 && work.seconds > 0) {
      io.loading_samples_per_second = static_cast<double>(work.samples) / work.seconds;
    }
    f->io = io;
  }

  StatusOr<bool> Evaluate(int64_t step, int64_t epoch) {
    StatusOr<bool> reached = false;
    context_.mllog.Start("eval_start", {{"epoch_num", epoch}});
    phases_.Time(TrainingPhase::kEval, [&] { reached = trainee_.Evaluate(step, clock_); });
    context_.mllog.Stop("eval_stop", {{"epoch_num", epoch}});
    phases_.Settle();
    PublishMemory(context_.metrics, driver_->tensor_peak(), *sync_, *optimizer_);
    return reached;
  }

  TaskContext& context_;
  Communicator& comm_;
  Trainee& trainee_;
  RunClock clock_;
  PhaseTimer phases_;
  BuiltModel model_;
  std::unique_ptr<GradientSync> sync_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  std::unique_ptr<StepDriver> driver_;
  std::optional<DynamicLossScaler> scaler_;
  std::optional<RankPeak> peak_;
  std::optional<double> forward_flops_per_sample_;
  double load_seconds_ = 0;
  int64_t data_bytes_published_ = 0;
  TaskOutcome outcome_;
};

}  // namespace

StatusOr<TaskOutcome> RunTrainingLoop(TaskContext& context, Trainee& trainee) {
  TrainingLoop loop(context, trainee);
  return loop.Run();
}

}  // namespace ergobench

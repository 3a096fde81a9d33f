#include "runner/train/step_driver.h"

#include <algorithm>

#include "runner/stop_signal.h"

namespace ergobench {

StatusOr<double> StepDriver::Step(int64_t step, const StepWork& work) {
  if (step % kAgreeEvery == 0) RETURN_IF_ERROR(AgreeToContinue(comm_, "during training"));
  if (memory_) memory_->ResetPeak();
  const auto start = clock_.Now();
  phases_.Time(TrainingPhase::kOptimizer, [&] {
    optimizer_.zero_grad();
    sync_.StartStep(phases_);
  });
  const double scale = scaler_ ? scaler_->scale() : 1.0;
  double loss_sum = 0;
  for (int64_t micro = 0; micro < work.micro_batches; ++micro) {
    Status loaded = Status::Ok();
    phases_.Time(TrainingPhase::kData, [&] { loaded = work.load(micro); });
    RETURN_IF_ERROR(loaded);
    torch::Tensor loss;
    phases_.Time(TrainingPhase::kForward, [&] { loss = work.loss(micro); });
    sync_.BeforeBackward(micro == work.micro_batches - 1);
    phases_.Time(TrainingPhase::kBackward, [&] { (scaler_ ? loss * scale : loss).backward(); });
    loss_sum += loss.item<double>();
  }
  RETURN_IF_ERROR(sync_.Synchronize(phases_));
  Status updated = Status::Ok();
  bool apply = true;
  phases_.Time(TrainingPhase::kOptimizer, [&] {
    if (scaler_) updated = Unscale(scale, &apply);
    if (updated.ok() && apply && work.before_update) updated = work.before_update();
    if (updated.ok() && apply) optimizer_.step();
  });
  RETURN_IF_ERROR(updated);
  if (apply) ++updates_;
  RETURN_IF_ERROR(sync_.AfterUpdate(phases_));
  phases_.Settle();  // the step's work done on the device too, as its loss read already waited for most
  clock_.Step(clock_.SecondsSince(start), work.samples);
  if (memory_) {
    const TensorPeak step_peak = memory_->Peak();
    TensorPeak& peak = tensor_peak_ ? *tensor_peak_ : tensor_peak_.emplace(step_peak);
    peak.tensor_bytes = std::max(peak.tensor_bytes, step_peak.tensor_bytes);
    if (step_peak.reserved_bytes) peak.reserved_bytes = std::max(peak.reserved_bytes.value_or(0), *step_peak.reserved_bytes);
  }
  return loss_sum;
}

Status StepDriver::Unscale(double scale, bool* apply) {
  sync_.ScaleGradients(1.0 / scale);
  ASSIGN_OR_RETURN(const double norm, sync_.GradNorm());
  ASSIGN_OR_RETURN(*apply, scaler_->Update(norm));
  return Status::Ok();
}

}  // namespace ergobench

// Where a rank trains (spec.device) and what that changes: the device its model and batches
// live on, autocast for reduced precision, and the fence that makes a phase's time include the
// GPU work it queued. Only torch translation units include this header.
#pragma once

#include <torch/torch.h>

#include "api/v1alpha1/benchmark.h"
#include "base/status.h"
#include "runner/train/loss_scaler.h"
#include "runner/train/phase_timer.h"

namespace ergobench {

// The CPU, or for device cuda this rank's GPU: its local rank (runner/dist/rendezvous_env.h)
// modulo the GPUs it sees. FailedPrecondition where this libtorch has no CUDA or sees no GPU.
StatusOr<torch::Device> TrainingDevice(const BenchmarkSpec& spec);

// A `precision` ("fp32", "bf16", "fp16") the device can train in: fp16 needs a GPU (the CPU's
// autocast has no fp16 kernels worth timing). InvalidArgument naming spec.hyperparameters.precision.
Status CheckPrecision(const std::string& precision, torch::Device device);
// The recipe's `precision` resolved and checked: auto is what each device trains fastest in and
// converges like fp32 without a loss scale, bf16 on GPUs and fp32 on CPUs.
StatusOr<std::string> ResolvePrecision(const std::string& precision, torch::Device device);
// fp16's loss scaling with torch.amp.GradScaler's defaults; none for fp32 and bf16, whose range is fp32's.
std::optional<LossScalerOptions> AmpLossScaling(const std::string& precision);

// Autocast of the forward pass to bf16 or fp16 on `device` while alive; a no-op at fp32.
class Autocast {
 public:
  Autocast(torch::Device device, const std::string& precision);
  ~Autocast();
  Autocast(const Autocast&) = delete;
  Autocast& operator=(const Autocast&) = delete;

 private:
  c10::DeviceType type_;
  bool enabled_;
};

// `device`'s current stream as a PhaseTimeline: CUDA events with timing, read by the GPU's
// clock. Null where this libtorch's generic events cannot time (1.13 has no elapsedTime): the
// training loop then fences each phase (FenceDevice) instead.
std::unique_ptr<PhaseTimeline> OpenDeviceTimeline(torch::Device device);

// Waits until the work queued on `device` so far has run (a CUDA event on its current stream,
// recorded and waited for); nothing on the CPU, whose work is done when the call returns.
void FenceDevice(torch::Device device);

}  // namespace ergobench

#include "runner/train/training_device.h"

#include <ATen/autocast_mode.h>
#include <c10/core/Event.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include <deque>
#include <thread>

#include "runner/dist/rendezvous_env.h"

namespace ergobench {
namespace {

// libtorch 2.4 made autocast's switches take the device type; Debian's 1.13 has one per device.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
void SetAutocast(c10::DeviceType type, bool enabled, at::ScalarType dtype) {
  at::autocast::set_autocast_dtype(type, dtype);
  at::autocast::set_autocast_enabled(type, enabled);
}
#else
void SetAutocast(c10::DeviceType type, bool enabled, at::ScalarType dtype) {
  if (type == c10::DeviceType::CUDA) {
    at::autocast::set_autocast_gpu_dtype(dtype);
    at::autocast::set_enabled(enabled);
  } else {
    at::autocast::set_autocast_cpu_dtype(dtype);
    at::autocast::set_cpu_enabled(enabled);
  }
}
#endif

// libtorch's generic events time where they have elapsedTime() and synchronize() (2.x).
template <typename Event>
concept TimingEvent = requires(Event& event) {
  event.elapsedTime(event);
  event.synchronize();
};

template <typename Event>
class EventTimeline : public PhaseTimeline {
 public:
  explicit EventTimeline(torch::Device device) : device_(device), guard_(device.type()) {}

  size_t Mark() override {
    // BACKEND_DEFAULT: CUDA's default event, which records time (PyTorch's default does not).
    if (used_ == events_.size()) events_.emplace_back(device_.type(), c10::EventFlag::BACKEND_DEFAULT);
    events_[used_].record(guard_.getStream(device_));
    return used_++;
  }
  double Seconds(size_t from, size_t to) override {
    events_[to].synchronize();
    return events_[from].elapsedTime(events_[to]) / 1000.0;  // milliseconds, as CUDA's
  }
  void Clear() override { used_ = 0; }

 private:
  torch::Device device_;
  c10::impl::VirtualGuardImpl guard_;
  std::deque<Event> events_;  // reused step after step: creating a CUDA event costs more than recording one
  size_t used_ = 0;
};

// A template, so that the branch for the other kind of libtorch is never compiled.
template <typename Event>
std::unique_ptr<PhaseTimeline> MakeEventTimeline(torch::Device device) {
  if constexpr (TimingEvent<Event>) {
    return std::make_unique<EventTimeline<Event>>(device);
  } else {
    return nullptr;
  }
}

}  // namespace

std::unique_ptr<PhaseTimeline> OpenDeviceTimeline(torch::Device device) {
  return device.is_cuda() ? MakeEventTimeline<c10::Event>(device) : nullptr;
}

StatusOr<torch::Device> TrainingDevice(const BenchmarkSpec& spec) {
  if (spec.device != "cuda") return torch::Device(torch::kCPU);
  if (!torch::cuda::is_available()) {
    return Status::FailedPrecondition(
        "spec.device: cuda, but " +
        std::string(ERGOBENCH_TORCH_CUDA ? "libtorch sees no GPU (no driver, or none visible to this process)"
                                         : "this runner's libtorch was built without CUDA (build it against a CUDA "
                                           "libtorch: ERGOBENCH_TORCH_CONFIG, bench/gpu/run.sh)"));
  }
  const int count = static_cast<int>(torch::cuda::device_count());
  return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(LocalRank(ProcessEnv()) % count));
}

Status CheckPrecision(const std::string& precision, torch::Device device) {
  if (precision != "fp32" && precision != "bf16" && precision != "fp16") {
    return Status::InvalidArgument("spec.hyperparameters.precision: \"" + precision + "\" is not fp32, bf16 or fp16");
  }
  if (precision == "fp16" && !device.is_cuda()) {
    return Status::InvalidArgument("spec.hyperparameters.precision: fp16 autocast needs a CUDA device; use bf16 or fp32");
  }
  return Status::Ok();
}

StatusOr<std::string> ResolvePrecision(const std::string& precision, torch::Device device) {
  const std::string resolved = precision != "auto" ? precision : device.is_cuda() ? "bf16" : "fp32";
  RETURN_IF_ERROR(CheckPrecision(resolved, device));
  return resolved;
}

std::optional<LossScalerOptions> AmpLossScaling(const std::string& precision) {
  if (precision != "fp16") return std::nullopt;
  return LossScalerOptions{65536.0, 2.0, 2000, std::nullopt, 1e-4};
}

Autocast::Autocast(torch::Device device, const std::string& precision)
    : type_(device.type()), enabled_(precision == "bf16" || precision == "fp16") {
  if (enabled_) SetAutocast(type_, true, precision == "bf16" ? at::kBFloat16 : at::kHalf);
}

Autocast::~Autocast() {
  if (!enabled_) return;
  SetAutocast(type_, false, type_ == c10::DeviceType::CUDA ? at::kHalf : at::kBFloat16);
  at::autocast::clear_cache();
}

void FenceDevice(torch::Device device) {
  if (!device.is_cuda()) return;
  const c10::impl::VirtualGuardImpl guard(device.type());
  c10::Event event(device.type());
  event.record(guard.getStream(device));
  while (!event.query()) std::this_thread::yield();  // libtorch 1.13's Event has no synchronize()
}

}  // namespace ergobench

#include "runner/train/memory_accounting.h"

#include <sys/resource.h>

#include <algorithm>

#include "runner/metrics/runner_metrics.h"
#include "runner/sync/gradient_sync.h"

namespace ergobench {

int64_t TensorBytes(const std::vector<torch::Tensor>& tensors) {
  int64_t bytes = 0;
  for (const torch::Tensor& t : tensors) {
    if (t.defined()) bytes += t.numel() * static_cast<int64_t>(t.element_size());
  }
  return bytes;
}

int64_t OptimizerStateBytes(torch::optim::Optimizer& optimizer) {
  std::vector<torch::Tensor> state;
  for (const auto& [key, param_state] : optimizer.state()) {
    if (const auto* sgd = dynamic_cast<const torch::optim::SGDParamState*>(param_state.get())) {
      state.push_back(sgd->momentum_buffer());
    } else if (const auto* adamw = dynamic_cast<const torch::optim::AdamWParamState*>(param_state.get())) {
      state.insert(state.end(), {adamw->exp_avg(), adamw->exp_avg_sq(), adamw->max_exp_avg_sq()});
    } else if (const auto* adam = dynamic_cast<const torch::optim::AdamParamState*>(param_state.get())) {
      state.insert(state.end(), {adam->exp_avg(), adam->exp_avg_sq(), adam->max_exp_avg_sq()});
    }
  }
  return TensorBytes(state);
}

int64_t PeakResidentBytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

std::optional<MemoryFigures> MeasureMemory(const std::optional<TensorPeak>& peak, const GradientSync& sync,
                                           torch::optim::Optimizer& optimizer) {
  if (!peak) return std::nullopt;
  MemoryFigures m;
  m.peak_resident_bytes = PeakResidentBytes();
  m.peak_tensor_bytes = peak->tensor_bytes;
  m.peak_reserved_bytes = peak->reserved_bytes;
  m.parameter_bytes = sync.ParameterBytes();
  m.gradient_bytes = sync.GradientBytes();
  m.optimizer_state_bytes = OptimizerStateBytes(optimizer);
  m.activation_bytes =
      std::max<int64_t>(0, m.peak_tensor_bytes - m.parameter_bytes - m.gradient_bytes - m.optimizer_state_bytes);
  return m;
}

std::optional<MemoryFigures> PublishMemory(RunnerMetrics& metrics, const std::optional<TensorPeak>& peak,
                                           const GradientSync& sync, torch::optim::Optimizer& optimizer) {
  std::optional<MemoryFigures> memory = MeasureMemory(peak, sync, optimizer);
  if (memory) metrics.SetMemory(*memory);
  return memory;
}

}  // namespace ergobench

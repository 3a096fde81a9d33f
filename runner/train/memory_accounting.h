// A training run's memory per rank (api/v1alpha1/result.h MemoryFigures): the exact sizes of what this
// rank holds for parameters, gradients and optimizer state, the peak of torch's tensor bytes on
// the training device over the training steps (tensor_memory.h, kept by the StepDriver) and on
// a GPU the peak its caching allocator reserved, and the process's peak RSS. Only torch translation units include this.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <torch/torch.h>

#include "api/v1alpha1/result.h"
#include "runner/metrics/tensor_memory.h"

namespace ergobench {

class GradientSync;
class RunnerMetrics;

// Bytes of the defined tensors' storage, each as its element count times element size.
int64_t TensorBytes(const std::vector<torch::Tensor>& tensors);
// Bytes of an SGD or Adam(W) optimizer's per-parameter state (momentum, moments).
int64_t OptimizerStateBytes(torch::optim::Optimizer& optimizer);
// The process's peak resident set (getrusage), in bytes.
int64_t PeakResidentBytes();

// Absent without a peak of tensor bytes (no counting allocator, or no step taken).
std::optional<MemoryFigures> MeasureMemory(const std::optional<TensorPeak>& peak, const GradientSync& sync,
                                           torch::optim::Optimizer& optimizer);

// MeasureMemory, also set as ergobench_memory_bytes. The trainers call it at every evaluation,
// so that dashboards follow the run, and once at its end for the result.
std::optional<MemoryFigures> PublishMemory(RunnerMetrics& metrics, const std::optional<TensorPeak>& peak,
                                           const GradientSync& sync, torch::optim::Optimizer& optimizer);

}  // namespace ergobench

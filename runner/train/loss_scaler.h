// Dynamic loss scaling for mixed precision (Micikevicius et al., 2018), by the rule of MLBench's
// translation recipes (mlbench-core's DynamicLossScaler): the loss is multiplied by the scale
// before backward and the gradients divided by it after, so that small fp16 gradients do not
// flush to zero. An update whose unscaled gradient norm is inf or NaN is skipped and the scale
// divided by `factor`; once `window` updates in a row were clean, it is multiplied by
// `factor`, up to `max_scale`. Nothing here depends on torch or the device: the trainer feeds
// it each update's gradient norm and applies the update only when told to.
#pragma once

#include <cstdint>
#include <optional>

#include "base/status.h"

namespace ergobench {

struct LossScalerOptions {
  double initial_scale = 1024;      // 4a: 2^10; 4b: 2^7
  double factor = 2;
  int64_t window = 128;             // 4a: 128; 4b: 2000
  std::optional<double> max_scale;  // 4a: 2^13; 4b: none
  // A scale divided down to this means the gradients are inf or NaN whatever the scale: the
  // run fails rather than skip every update from then on.
  double min_scale = 1e-4;
};

class DynamicLossScaler {
 public:
  // Refuses what would never settle: a scale or factor not above 1 where it must be, a window
  // below 1, a maximum below the initial scale.
  static StatusOr<DynamicLossScaler> Create(const LossScalerOptions& options);

  double scale() const { return scale_; }
  // Updates attempted, and those skipped for an inf or NaN gradient: the steps a run counts
  // are attempts() - skipped().
  int64_t attempts() const { return attempts_; }
  int64_t skipped() const { return skipped_; }

  // After an update's gradients were unscaled: their norm. true: apply the update; false: skip
  // it (an overflow, the scale divided). An error once overflows took the scale to min_scale.
  StatusOr<bool> Update(double gradient_norm);

 private:
  explicit DynamicLossScaler(const LossScalerOptions& options);

  LossScalerOptions options_;
  double scale_;
  int64_t attempts_ = 0;
  int64_t skipped_ = 0;
  int64_t last_overflow_ = -1;  // the attempt of the last overflow
};

}  // namespace ergobench

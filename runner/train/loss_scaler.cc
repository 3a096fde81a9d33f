#include "runner/train/loss_scaler.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ergobench {
namespace {

std::string Number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

}  // namespace

StatusOr<DynamicLossScaler> DynamicLossScaler::Create(const LossScalerOptions& options) {
  const auto finite_positive = [](double v) { return std::isfinite(v) && v > 0; };
  if (!finite_positive(options.initial_scale)) {
    return Status::InvalidArgument("loss scaling: the initial scale must be a number above 0, not " +
                                   Number(options.initial_scale));
  }
  if (!(std::isfinite(options.factor) && options.factor > 1)) {
    return Status::InvalidArgument("loss scaling: the factor must be a number above 1, not " + Number(options.factor));
  }
  if (options.window < 1) {
    return Status::InvalidArgument("loss scaling: the window must be at least 1 update, not " +
                                   std::to_string(options.window));
  }
  if (options.max_scale && !(std::isfinite(*options.max_scale) && *options.max_scale >= options.initial_scale)) {
    return Status::InvalidArgument("loss scaling: the maximum scale must be a number of at least the initial scale (" +
                                   Number(options.initial_scale) + "), not " + Number(*options.max_scale));
  }
  if (!(finite_positive(options.min_scale) && options.min_scale < options.initial_scale)) {
    return Status::InvalidArgument("loss scaling: the minimum scale must be a number above 0 and below the initial "
                                   "scale, not " + Number(options.min_scale));
  }
  return DynamicLossScaler(options);
}

DynamicLossScaler::DynamicLossScaler(const LossScalerOptions& options)
    : options_(options), scale_(options.initial_scale) {}

StatusOr<bool> DynamicLossScaler::Update(double gradient_norm) {
  const int64_t attempt = attempts_++;
  if (!std::isfinite(gradient_norm)) {
    ++skipped_;
    last_overflow_ = attempt;
    scale_ /= options_.factor;
    if (scale_ <= options_.min_scale) {
      return Status::FailedPrecondition("loss scaling: the gradients overflowed at every scale down to " +
                                        Number(scale_) + " (update " + std::to_string(attempt + 1) +
                                        "): they are inf or NaN whatever the scale");
    }
    return false;
  }
  // The window-th clean update since the last overflow (or the start) raises the scale.
  if ((attempt - last_overflow_) % options_.window == 0) {
    scale_ *= options_.factor;
    if (options_.max_scale) scale_ = std::min(scale_, *options_.max_scale);
  }
  return true;
}

}  // namespace ergobench

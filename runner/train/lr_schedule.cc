#include "runner/train/lr_schedule.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ergobench {

LrSchedule::LrSchedule(double base_lr, int world_size, double plateau_factor, int plateau_patience)
    : base_lr_(base_lr),
      target_lr_(base_lr * world_size),
      warmup_epochs_(std::log2(static_cast<double>(world_size))),
      factor_(plateau_factor),
      patience_(plateau_patience),
      best_loss_(std::numeric_limits<double>::infinity()) {}

double LrSchedule::At(double epoch_progress) const {
  double lr = target_lr_;
  if (epoch_progress < warmup_epochs_) {
    lr = base_lr_ + (target_lr_ - base_lr_) * epoch_progress / warmup_epochs_;
  }
  return lr * multiplier_;
}

bool LrSchedule::OnValidationLoss(double loss) {
  if (loss < best_loss_) {
    best_loss_ = loss;
    bad_epochs_ = 0;
    return false;
  }
  if (++bad_epochs_ < patience_) return false;
  multiplier_ *= factor_;
  bad_epochs_ = 0;
  return true;
}

double WarmupCosineLr(int64_t step, int64_t warmup_steps, int64_t decay_steps, double peak, double floor) {
  if (step < warmup_steps) return peak * static_cast<double>(step + 1) / static_cast<double>(warmup_steps);
  if (step >= decay_steps) return floor;
  const double progress = static_cast<double>(step - warmup_steps) / static_cast<double>(decay_steps - warmup_steps);
  return floor + 0.5 * (1 + std::cos(M_PI * progress)) * (peak - floor);
}

double WarmupPolynomialLr(double epoch_progress, double warmup_epochs, double total_epochs, double peak, double power,
                          double end) {
  if (epoch_progress < warmup_epochs) return peak * epoch_progress / warmup_epochs;
  if (epoch_progress >= total_epochs) return end;
  return (peak - end) * std::pow(1 - (epoch_progress - warmup_epochs) / (total_epochs - warmup_epochs), power) + end;
}

double WarmupEpochDecayLr(int64_t epoch, double base, double peak, int64_t warmup_epochs,
                          const std::vector<EpochDecay>& decays) {
  if (epoch < warmup_epochs) return base + (peak - base) * static_cast<double>(epoch) / static_cast<double>(warmup_epochs);
  double factor = 1;
  for (const EpochDecay& d : decays) {
    if (epoch >= d.epoch) factor = d.factor;
  }
  return peak * factor;
}

double InverseSqrtLr(int64_t update, int64_t warmup, double peak) {
  if (update <= warmup) return warmup > 0 ? peak * static_cast<double>(update) / static_cast<double>(warmup) : peak;
  return peak * std::sqrt(static_cast<double>(warmup) / static_cast<double>(update));
}

double StepDecayLr::At(int64_t update) const {
  const int64_t warmup_end = std::min(warmup, decay_start);  // MLBench caps the warm-up there
  if (update <= warmup_end) {
    return warmup_end > 0 ? peak * std::pow(0.01, static_cast<double>(warmup_end - update) / warmup_end) : peak;
  }
  if (update < decay_start) return peak;
  const int64_t steps = std::min(decays, (update - decay_start) / std::max<int64_t>(interval, 1) + 1);
  return peak * std::pow(factor, static_cast<double>(steps));
}

}  // namespace ergobench

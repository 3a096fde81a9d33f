#include "api/analysis/progress_estimate.h"

#include <algorithm>

namespace ergobench {

std::optional<double> DoneFraction(std::optional<int64_t> max_epochs, std::optional<int64_t> epoch, int64_t done,
                                   int64_t total) {
  if (total <= 0) return std::nullopt;
  const double within = std::clamp(static_cast<double>(done) / static_cast<double>(total), 0.0, 1.0);
  if (!epoch || !max_epochs || *max_epochs <= 0) return within;
  return std::clamp((static_cast<double>(*epoch - 1) + within) / static_cast<double>(*max_epochs), 0.0, 1.0);
}

std::optional<double> ProgressEstimator::WorkSecondsLeft(double seconds, double fraction) const {
  const double moved = fraction - first_work_->value;
  // Until the work has moved and a second has passed, a rate would be noise.
  if (moved <= 0 || seconds - first_work_->seconds < 1) return std::nullopt;
  return (1 - fraction) * (seconds - first_work_->seconds) / moved;
}

std::optional<double> ProgressEstimator::GoalSecondsLeft(double seconds) const {
  if (!goal_ || !evaluations_[0] || !evaluations_[1]) return std::nullopt;
  const Point& older = *evaluations_[0];
  const Point& latest = *evaluations_[1];
  const double sign = goal_->higher_is_better ? 1 : -1;
  const double gained = sign * (latest.value - older.value);
  const double to_go = sign * (goal_->target - latest.value);
  // A trend away from the goal, or one that took no time, says nothing about when it is reached.
  if (gained <= 0 || latest.seconds <= older.seconds || to_go < 0) return std::nullopt;
  const double reached_at = latest.seconds + to_go * (latest.seconds - older.seconds) / gained;
  return std::max(0.0, reached_at - seconds);
}

ProgressEstimate ProgressEstimator::Observe(double seconds, std::optional<double> done_fraction,
                                            std::optional<double> goal_value) {
  if (goal_value && (!evaluations_[1] || evaluations_[1]->value != *goal_value)) {
    evaluations_[0] = evaluations_[1];
    evaluations_[1] = Point{seconds, *goal_value};
  }
  ProgressEstimate estimate;
  estimate.done_fraction = done_fraction;
  if (done_fraction && !first_work_) first_work_ = Point{seconds, *done_fraction};
  const std::optional<double> work = done_fraction ? WorkSecondsLeft(seconds, *done_fraction) : std::nullopt;
  const std::optional<double> goal = GoalSecondsLeft(seconds);
  if (goal && (!work || *goal < *work)) {
    estimate.seconds_left = goal;
    estimate.estimated_from = kEstimatedFromGoal;
  } else if (work) {
    estimate.seconds_left = work;
    estimate.estimated_from = kEstimatedFromWork;
  }
  return estimate;
}

}  // namespace ergobench

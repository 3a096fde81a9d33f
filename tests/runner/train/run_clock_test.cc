#include "runner/train/run_clock.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runner/metrics/mllog.h"
#include "runner/metrics/runner_metrics.h"

namespace ergobench {
namespace {

using std::chrono::milliseconds;

class RunClockTest : public testing::Test {
 protected:
  RunClockTest() {
    mllog_.SetObserver([this](const std::string& type, const std::string& key) {
      events_.push_back(type + " " + key + " @" + std::to_string(ElapsedMs()));
    });
  }
  int64_t ElapsedMs() const {
    return std::chrono::duration_cast<milliseconds>(time_.Now().time_since_epoch()).count();
  }
  // One step of `seconds` on the fake clock, measured as the trainers measure it.
  void Step(RunClock& clock, milliseconds duration, int64_t samples) {
    const auto start = clock.Now();
    time_.Advance(duration);
    clock.Step(clock.SecondsSince(start), samples);
  }

  FakeTime time_;
  // The log's wall clock is the fake one's, from a Unix time of 1764000000000 ms.
  MlLog mllog_{"", [this] { return 1764000000000 + ElapsedMs(); }};
  RunnerMetrics metrics_{MetricLabels{"b", "1a", "gloo", 0, 1}};
  std::vector<std::string> events_;
};

TEST_F(RunClockTest, InitIsApartAndTheWindowSkipsTheWarmUp) {
  RunClock clock(mllog_, metrics_, /*warmup_steps=*/2, time_);
  time_.Advance(milliseconds(2000));  // rendezvous, model and data set-up
  Figures f;
  clock.StartRun(&f);
  EXPECT_DOUBLE_EQ(f.init_seconds, 2.0);
  EXPECT_EQ(f.run_start_ms, 1764000002000) << "run_start's time_ms, as the log says it";
  for (int i = 0; i < 5; ++i) Step(clock, milliseconds(500), 10);
  time_.Advance(milliseconds(250));  // an evaluation
  clock.ReachGoal(&f);
  clock.StopRun(/*has_goal=*/true, &f);

  EXPECT_EQ(clock.steps(), 5);
  EXPECT_EQ(f.throughput_window_steps, 3);
  EXPECT_DOUBLE_EQ(*f.throughput_window_seconds, 1.5);
  EXPECT_DOUBLE_EQ(*f.samples_per_second, 20.0);
  EXPECT_EQ(f.samples, 50);
  EXPECT_DOUBLE_EQ(*f.time_to_accuracy_seconds, 2.75);
  EXPECT_DOUBLE_EQ(f.run_seconds, 2.75);
  EXPECT_EQ(f.run_stop_ms, 1764000004750);
  EXPECT_EQ(f.goal_reached, true);
  // init_stop and run_start mark the same moment, before any step; run_stop ends the region.
  EXPECT_EQ(events_, (std::vector<std::string>{"INTERVAL_END init_stop @2000", "INTERVAL_START run_start @2000",
                                               "INTERVAL_END run_stop @4750"}));
}

TEST_F(RunClockTest, TimeToAccuracyStopsAtTheGoalNotAtTheEnd) {
  RunClock clock(mllog_, metrics_, /*warmup_steps=*/0, time_);
  Figures f;
  clock.StartRun(&f);
  Step(clock, milliseconds(1000), 4);
  clock.ReachGoal(&f);
  Step(clock, milliseconds(3000), 4);  // training goes on to the end of its epoch
  clock.StopRun(/*has_goal=*/true, &f);
  EXPECT_DOUBLE_EQ(*f.time_to_accuracy_seconds, 1.0);
  EXPECT_DOUBLE_EQ(f.run_seconds, 4.0);
  EXPECT_DOUBLE_EQ(*f.samples_per_second, 2.0);
}

TEST_F(RunClockTest, AMissedGoalIsFalseAndNoGoalIsAbsent) {
  Figures missed;
  RunClock with_goal(mllog_, metrics_, 0, time_);
  with_goal.StartRun(&missed);
  with_goal.StopRun(/*has_goal=*/true, &missed);
  EXPECT_EQ(missed.goal_reached, false);
  EXPECT_FALSE(missed.time_to_accuracy_seconds.has_value());
  EXPECT_FALSE(missed.samples_per_second.has_value());  // no step, no window: absent, not zero

  Figures throughput_only;
  RunClock without_goal(mllog_, metrics_, 0, time_);
  without_goal.StartRun(&throughput_only);
  without_goal.StopRun(/*has_goal=*/false, &throughput_only);
  EXPECT_FALSE(throughput_only.goal_reached.has_value());
}

}  // namespace
}  // namespace ergobench

#include "runner/train/phase_timer.h"

#include <gtest/gtest.h>

#include "base/clock.h"
#include "runner/metrics/runner_metrics.h"

namespace ergobench {
namespace {

using std::chrono::milliseconds;

class PhaseTimerTest : public testing::Test {
 protected:
  Figures Report() const {
    Figures figures;
    phases_.Report(&figures);
    return figures;
  }

  FakeTime time_;
  RunnerMetrics metrics_{MetricLabels{"b", "gpt", "gloo", 0, 2}};
  PhaseTimer phases_{metrics_, time_};
};

TEST_F(PhaseTimerTest, EachPhaseGetsItsWallTimeAndTheRatioIsCommunicationOverTheStep) {
  phases_.Time(TrainingPhase::kData, [&] { time_.Advance(milliseconds(100)); });
  phases_.Time(TrainingPhase::kForward, [&] { time_.Advance(milliseconds(300)); });
  phases_.Time(TrainingPhase::kCommunication, [&] { time_.Advance(milliseconds(600)); });
  phases_.Time(TrainingPhase::kEval, [&] { time_.Advance(milliseconds(5000)); });
  const Figures f = Report();
  EXPECT_DOUBLE_EQ(f.phase_seconds.at("data"), 0.1);
  EXPECT_DOUBLE_EQ(*f.compute_seconds, 0.3);
  EXPECT_DOUBLE_EQ(*f.communication_seconds, 0.6);
  EXPECT_DOUBLE_EQ(*f.communication_ratio, 0.6 / 1.0);  // evaluation is outside the step
}

// ZeRO-3 waits for a block's gather inside forward and backward: the wait is communication,
// and forward and backward keep only their own time, so the step's seconds add up once.
TEST_F(PhaseTimerTest, APhaseTimedInsideAnotherIsTakenOutOfIt) {
  const double forward = phases_.Time(TrainingPhase::kForward, [&] {
    time_.Advance(milliseconds(100));
    phases_.Time(TrainingPhase::kCommunication, [&] { time_.Advance(milliseconds(40)); });
    time_.Advance(milliseconds(100));
    phases_.Time(TrainingPhase::kCommunication, [&] { time_.Advance(milliseconds(60)); });
  });
  EXPECT_DOUBLE_EQ(forward, 0.3);  // the caller still sees the whole
  phases_.Time(TrainingPhase::kBackward, [&] {
    phases_.Time(TrainingPhase::kCommunication, [&] { time_.Advance(milliseconds(50)); });
    time_.Advance(milliseconds(250));
  });
  phases_.Time(TrainingPhase::kCommunication, [&] { time_.Advance(milliseconds(10)); });
  const Figures f = Report();
  EXPECT_DOUBLE_EQ(f.phase_seconds.at("forward"), 0.2);
  EXPECT_DOUBLE_EQ(f.phase_seconds.at("backward"), 0.25);
  EXPECT_DOUBLE_EQ(*f.communication_seconds, 0.04 + 0.06 + 0.05 + 0.01);
  EXPECT_DOUBLE_EQ(*f.compute_seconds + *f.communication_seconds, 0.3 + 0.3 + 0.01);
}

}  // namespace
}  // namespace ergobench

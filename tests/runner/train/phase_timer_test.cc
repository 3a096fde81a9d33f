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

// A device whose clock the test sets: each marker's time is the fake wall time plus how far
// the device lags behind the host when it reaches the marker (`lag`).
class FakeTimeline : public PhaseTimeline {
 public:
  explicit FakeTimeline(FakeTime& time) : time_(time) {}
  size_t Mark() override {
    at_.push_back(std::chrono::duration<double>(time_.Now().time_since_epoch()).count() + lag);
    return at_.size() - 1;
  }
  double Seconds(size_t from, size_t to) override {
    ++waits;
    return at_[to] - at_[from];
  }
  void Clear() override {
    at_.clear();
    ++clears;
  }

  double lag = 0;
  int waits = 0;
  int clears = 0;

 private:
  FakeTime& time_;
  std::vector<double> at_;
};

// On a GPU a phase returns before its work has run: the host's time would charge the work to
// whichever later phase waits for it. The device's clock charges each phase its own stretch.
TEST_F(PhaseTimerTest, OnADeviceTimelineEachPhaseIsChargedItsTimeOnTheDeviceAtSettle) {
  auto owned = std::make_unique<FakeTimeline>(time_);
  FakeTimeline& device = *owned;
  phases_.set_timeline(std::move(owned));
  const double data = phases_.Time(TrainingPhase::kData, [&] { time_.Advance(milliseconds(10)); });
  EXPECT_DOUBLE_EQ(data, 0.01) << "callers still get the host's time";
  // Forward queues 2 ms on the host that the device takes 300 ms to run ...
  phases_.Time(TrainingPhase::kForward, [&] {
    time_.Advance(milliseconds(2));
    device.lag = 0.298;
  });
  // ... and backward, whose host side waits for it, is charged only its own 200 ms.
  phases_.Time(TrainingPhase::kBackward, [&] {
    time_.Advance(milliseconds(498));
    device.lag = 0;
  });
  EXPECT_TRUE(Report().phase_seconds.at("forward") == 0) << "nothing is charged before Settle";
  phases_.Settle();
  EXPECT_EQ(device.waits, 3);
  EXPECT_EQ(device.clears, 1);
  const Figures f = Report();
  EXPECT_DOUBLE_EQ(f.phase_seconds.at("data"), 0.01);
  EXPECT_DOUBLE_EQ(f.phase_seconds.at("forward"), 0.3);
  EXPECT_DOUBLE_EQ(f.phase_seconds.at("backward"), 0.2);
  phases_.Settle();
  EXPECT_EQ(device.waits, 3) << "a second Settle has nothing to wait for";
}

TEST_F(PhaseTimerTest, OnADeviceTimelineAPhaseInsideAnotherIsLeftToIt) {
  auto owned = std::make_unique<FakeTimeline>(time_);
  phases_.set_timeline(std::move(owned));
  phases_.Time(TrainingPhase::kForward, [&] {
    time_.Advance(milliseconds(100));
    phases_.Time(TrainingPhase::kCommunication, [&] { time_.Advance(milliseconds(40)); });
  });
  phases_.Settle();
  const Figures f = Report();
  EXPECT_DOUBLE_EQ(f.phase_seconds.at("forward"), 0.14);
  EXPECT_DOUBLE_EQ(f.phase_seconds.at("communication"), 0);
}

}  // namespace
}  // namespace ergobench
